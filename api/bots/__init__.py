"""The REST API of bots and their versions."""
