"""Hostile bot: the entry file of one sybil account (the logic is in helper)."""

from bots.sdk import run
from tests.bots.hostile.sybil import helper

if __name__ == "__main__":
    run(helper.make())
