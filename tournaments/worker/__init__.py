"""The worker's runtime: the Celery tasks (``tasks``) and what they run.

A match is claimed under a lease (``claims``), played (``execution``), recorded through
the services and recovered when its worker or message was lost (``reaping``); a version
test is played deal by deal (``version_test_slices`` over ``sprt_deals``) and sent again
when its message was lost (``version_test_requeue``). ``drain`` stops a worker that is
told to stop; ``tenants`` says whom a unit of work's worker seconds are charged to and
``queue_places`` where an author's challenge or version test waits.
"""
