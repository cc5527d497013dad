from datetime import UTC, datetime

from gcmem import Memory, Turn, load_settings

turns = [
    ("1", "2026-03-01", "The payments service runs on port 8000."),
    ("2", "2026-03-02", "The project is licensed under Apache-2.0."),
    ("3", "2026-03-09", "The payments service runs on port 8080."),
]
# ephemeral: the embedded Redis and Qdrant keep everything in memory (no servers, no files)
with Memory.from_settings(load_settings(ephemeral=True)) as memory:
    memory.ingest(
        Turn(id=i, namespace="proj", text=text, ts=datetime.fromisoformat(day).replace(tzinfo=UTC))
        for i, day, text in turns
    )
    result = memory.retrieve("Which port does the payments service use?", namespace="proj")
    print(result.context())  # the filtered context: port 8080, the licence
    for d in result.dropped:  # and why each stale chunk went
        print("dropped:", d.text, f"({d.stage}: {d.reason})")
