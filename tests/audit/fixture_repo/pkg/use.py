import json

from pkg.store import Cache, Store, deco, helper
from pkg.store import helper as h2


def direct():
    s = Store("p")
    s.save(1)


def collision():
    c = Cache()
    c.save(2)


def untyped(obj):
    obj.save(3)


def builtin_recv():
    items = []
    items.save(4)


def aliased():
    return h2(5)


def commented():
    # helper(1) in a comment
    x = "helper(2) in a string"
    return x


def fstring():
    return f"{helper(3)}"


def local_param(helper):
    return helper(1)


def with_default(x=helper(0)):
    return x


@deco
def decorated():
    return 0


def external():
    return json.dumps({})
