"""Short-term memory: the newest N chunks per namespace, always added to the candidate set."""

from gcmem.stm.buffer import RedisShortTermBuffer, ShortTermBuffer

__all__ = ["RedisShortTermBuffer", "ShortTermBuffer"]
