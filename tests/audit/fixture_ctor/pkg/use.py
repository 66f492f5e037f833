from pkg.base import Handler, TestCase
from pkg.other import Other


def built_locally():
    class Foo(TestCase):
        def run(self):
            pass

    Foo().setUp()  # a Foo: TestCase.setUp runs, never Handler.setUp


def built_below():
    class Sub(Handler):
        pass

    Sub().setUp()  # a Sub: Handler.setUp runs (the graph links it)


def imported_class():
    Other().setUp()  # Other is imported: the judge does not follow imports and stays unsure


class Delegating(TestCase):
    def log(self, msg):
        return super(Delegating,  # noqa: UP008 - the explicit form, spread over two lines
                     self).log(msg)  # super() over two lines: TestCase.log only


def local_new():
    class C:
        pass

    return C.__new__(C)  # object.__new__ of this C: never pkg.base.C.__new__
