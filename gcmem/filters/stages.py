"""Registration of the built-in stages under the names settings use."""

from __future__ import annotations
