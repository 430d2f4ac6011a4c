"""The HTML pages of the site, one package per part: the site's home, help and
accounts (:mod:`web.site`), the dashboard's competition, match and replay pages
(:mod:`web.dashboard`), the bot authors' pages (:mod:`web.bots`) and the organisers'
(:mod:`web.organise`), with their templates (``web/templates/``) and static files
(``web/static/``) and the helpers their forms share (:mod:`web.once`,
:mod:`web.forms`, :mod:`web.words`).

A page parses its form, calls one service of ``bots.services`` or
``tournaments.services`` and reads through the apps' selectors; nothing in the apps
imports this package, and it imports nothing of the REST API (:mod:`api`).
"""
