import pytest

from api.service import validate


def test_validate_refuses_an_empty_order():
    with pytest.raises(ValueError):
        validate("", 0)
