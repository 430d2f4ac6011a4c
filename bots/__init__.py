"""Bots: the Django app for uploads plus pure subpackages (protocol, sdk, sandbox...)."""
