"""A well-behaved SDK bot for the sandbox tests: always plays the last legal label."""

from bots.sdk import Bot, run


class LastLegal(Bot):
    name = "last-legal"

    def act(self, observation, legal):
        return legal[-1]


if __name__ == "__main__":
    run(LastLegal())
