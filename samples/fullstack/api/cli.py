"""Command line: place an order without the web front end."""
import sys

from api.repo import connect
from api.service import place_order


def main(argv=None):
    args = argv or sys.argv[1:]
    print(place_order(connect(), args[0], int(args[1])))


if __name__ == "__main__":
    main()
