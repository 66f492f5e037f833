"""Storage classes for the audit fixture."""


class Store:
    def __init__(self, path):
        self.path = path

    def save(self, item):
        return self._write(item)

    def _write(self, item):
        return item


class Cache:
    def save(self, item):
        return item


class Base:
    def run(self):
        return self.step()

    def step(self):
        return 1


class Child(Base):
    def step(self):
        return 2


def helper(x):
    return x


def countdown(n):
    return countdown(n - 1) if n else 0


def deco(fn):
    return fn


def dumps(x):
    return str(x)


class Plain:
    def __init__(self, v):
        self.v = v


class Derived(Plain):
    pass


def outer():
    def inner():
        return 1

    return inner()
