"""The REST API under ``/api/``: the accounts' endpoints (:mod:`api.accounts`), the
bots' resources (:mod:`api.bots`) and the tournaments' (:mod:`api.tournaments`) on
one root router (:mod:`api.urls`), and what every API view shares: pagination,
parsers and errors (:mod:`api.defaults`).

A view parses its request, calls one service of ``bots.services`` or
``tournaments.services`` and reads through the apps' selectors; nothing in the apps
imports this package, and it imports nothing of the HTML pages (:mod:`web`).
"""
