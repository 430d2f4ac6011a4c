"""The organisers' pages, mounted at ``/organise/`` (URL namespace ``organise``):
create a competition with its variant's options, add entries, start, pause, resume
and close it, each with one call of :mod:`tournaments.services`; the organiser
right is :mod:`tournaments.permissions`."""
