import pkg.store
from pkg.store import Base, Derived


def make_derived():
    return Derived(1)


def nested_attr(obj):
    return obj.inner()


class Child2(Base):
    def step(self):
        return super().step()


def qualified():
    return pkg.store.Missing.save(1)


class Child3(Base):
    def step(self):
        return Base.step(self)


class Err(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        Exception.__init__(self, msg)


class Sibling(Base):
    def go(self):
        return self.step()  # self is a Sibling: Child.step never runs here
