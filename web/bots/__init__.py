"""The bot authors' pages: "My bots", a bot's page, uploads, entries, the API token.

Mounted at ``/bots/`` under the URL namespace ``bots-web``. Views parse the form,
call one service of ``bots.services`` or ``tournaments.services`` and show its
errors next to the field at fault; reads come from :mod:`web.bots.pages`.
"""
