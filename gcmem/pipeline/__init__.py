"""The stream processor: FastStream workers on a Redis Stream consumer group, query
request/reply over the bus, an HTTP interface, dead letters and metrics.

``gcmem.pipeline.app`` builds the FastStream application; the other modules are the parts it
wires together (each usable on its own, e.g. ``dlq`` by the CLI).
"""
