"""``greedy``: a rule-based player for every variant (see the family modules)."""

from __future__ import annotations
