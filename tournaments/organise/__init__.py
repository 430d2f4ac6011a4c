"""The organisers' pages, mounted at ``/organise/`` (URL namespace ``organise``):
create a competition with its variant's options, add entries, start, pause, resume
and close it. Pausing lives in :mod:`tournaments.organise.services`."""
