"""Hostile bot: reads everything and never says ready."""

import sys

for _line in sys.stdin:
    pass
