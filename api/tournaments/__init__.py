"""The REST API of competitions, entries, rounds, matches, game records and results."""
