from pkg.base import TestCase


class Other(TestCase):
    pass
