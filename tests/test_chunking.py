from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gcmem.facts.chunking import chunk_text, split_sentences, split_units


def test_versions_and_paths_stay_inside_their_sentence() -> None:
    text = "The API base path is /api/v1. We pin fastapi==0.110.0 now. Use e.g. v1.2.3 here."
    assert split_sentences(text) == [
        "The API base path is /api/v1.",
        "We pin fastapi==0.110.0 now.",
        "Use e.g. v1.2.3 here.",
    ]


def test_short_turn_is_one_chunk() -> None:
    assert chunk_text("Alice lives in Paris. She likes tea.", 480) == [
        "Alice lives in Paris. She likes tea."
    ]


def test_sentences_are_packed_up_to_the_budget() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(20)]
    chunks = chunk_text(" ".join(sentences), 100)
    assert all(len(c) <= 100 for c in chunks)
    assert " ".join(chunks) == " ".join(sentences)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=2000))
def test_chunks_respect_budget_and_lose_no_words(text: str) -> None:
    if not text.strip():
        return
    chunks = chunk_text(text, 64)
    assert all(0 < len(c) <= 64 for c in chunks)
    assert "".join(" ".join(chunks).split()) == "".join(text.split())


def test_a_code_fence_makes_its_lines_line_units() -> None:
    text = (
        "server block for uploads:\n```nginx\nclient_max_body_size 10m;\n"
        "keepalive_timeout 65;\n```\nThat is all. Really."
    )
    assert split_units(text) == [
        ("server block for uploads:", True),
        ("```nginx", True),
        ("client_max_body_size 10m;", True),
        ("keepalive_timeout 65;", True),
        ("```", True),
        ("That is all.", False),
        ("Really.", False),
    ]


def test_a_message_labelled_by_its_kind_is_prose_and_a_speakers_line_stays_a_line() -> None:
    assert split_units(
        "Update: we keep the spare keys with the Lindqvists. Their number is here."
    ) == [
        ("Update: we keep the spare keys with the Lindqvists.", False),
        ("Their number is here.", False),
    ]
    assert split_units("Maya: I moved to Lisbon last year, it is lovely.") == [
        ("Maya: I moved to Lisbon last year, it is lovely.", True)
    ]


def test_a_label_over_sentences_is_prose_and_a_short_value_stays_a_line() -> None:
    assert split_units(
        "About: Lila Marchetti is a fiddle player based in Austin. She grew up in Ohio."
    ) == [
        ("About: Lila Marchetti is a fiddle player based in Austin.", False),
        ("She grew up in Ohio.", False),
    ]
    # one sentence, or sentences of a word or two, read as the label's value
    assert split_units("description: Fast API. Built with love.") == [
        ("description: Fast API. Built with love.", True)
    ]
    assert split_units("port: 8080") == [("port: 8080", True)]
    # a topic's noun labels a paragraph too; a speaker's name labels a transcript's line
    assert split_units("Escalation: the primary has 15 minutes to ack. Then the secondary.")[0] == (
        "Escalation: the primary has 15 minutes to ack.",
        False,
    )
    luis = "Luis: Ha, welcome to the club! Our starter is named Doughvid Bowie, two years old."
    assert split_units(luis) == [(luis, True)]


def test_tab_indented_and_directive_comment_lines_are_lines() -> None:
    gomod = "require (\n\tgithub.com/segmentio/kafka-go v0.4.42\n\tgo.uber.org/zap v1.26.0\n)"
    assert all(line for _, line in split_units(gomod))
    sbatch = "train.sbatch header:\n#SBATCH --time=12:00:00\n#SBATCH --mem=64G"
    assert split_units(sbatch)[1:] == [
        ("#SBATCH --time=12:00:00", True),
        ("#SBATCH --mem=64G", True),
    ]
    # a hashtag opening a chat message is prose
    assert split_units("#ops-alerts is where the pages go now.") == [
        ("#ops-alerts is where the pages go now.", False)
    ]


def test_dockerfile_instructions_are_lines_after_a_comment() -> None:
    text = "# scraper image\nFROM python:3.10-slim\nWORKDIR /app\nCOPY . ."
    assert split_units(text) == [
        ("# scraper image", False),
        ("FROM python:3.10-slim", True),
        ("WORKDIR /app", True),
        ("COPY . .", True),
    ]
    # an instruction word in a sentence is prose
    assert split_units("From now on we deploy on Fridays.") == [
        ("From now on we deploy on Fridays.", False)
    ]


def test_a_paragraph_of_config_directives_is_lines() -> None:
    """nginx or redis.conf lines (``key value``) under a label are one line each, so that each
    is keyed as its line; a few short words in a row are still prose."""
    nginx = "From the media vhost:\n\nclient_body_timeout 30s;\nsend_timeout 45s;"
    assert split_units(nginx)[1:] == [
        ("client_body_timeout 30s;", True),
        ("send_timeout 45s;", True),
    ]
    conf = "sentinel on the cache box:\nmaxmemory 2gb\nmaxmemory-policy noeviction"
    assert [line for _, line in split_units(conf)] == [True, True, True]
    # a chunk joins the label and its lines: they stay lines
    assert [line for _, line in split_units(chunk_text(nginx, 400)[0])] == [True, True, True]
    assert split_units("we went home\nand had tea") == [("we went home and had tea", False)]
    assert split_units("pick up milk\nbook the vet") == [("pick up milk book the vet", False)]


def test_a_stanza_header_above_indented_lines_is_a_line() -> None:
    """ssh_config's ``Host bastion`` heads its indented lines; prose above indented code, a
    code statement (``class Foo``) and a header with nothing indented under it stay as they
    were."""
    entry = "Host bastion\n    HostName 10.4.0.12\n    User ec2-user"
    assert [line for _, line in split_units(entry)] == [True, True, True]
    assert split_units("Host bastion is the jump box") == [("Host bastion is the jump box", False)]
    assert split_units("Meet the new bastion\nhost for staging") == [
        ("Meet the new bastion host for staging", False)
    ]


def test_a_declaration_is_a_line_of_its_own() -> None:
    # an unfenced TypeScript excerpt under its path: each declaration a line unit, so the
    # excerpt keeps its path line and two files' excerpts stay two files
    text = (
        "src/config/env.production.ts\n"
        'export const API_BASE_URL = "https://api.tilly.app/graphql";\n'
        "export const SENTRY_ENABLED = true;"
    )
    assert [u.line for u in split_units(text)] == [False, True, True]
    assert chunk_text(text, 480) == [text]
    assert split_units("val timeout: Int = 30")[0].line
    # prose that says "const" or "let" is prose
    assert not split_units("Let x = 5 be the bound.")[0].line
    assert not split_units("We const-folded it = faster.")[0].line


def test_a_table_row_is_a_line_unit_and_prose_is_not() -> None:
    units = split_units("pg_hba.conf on reporting-db:\nhost  analytics  metabase  10.8.3.0/24")
    assert [u.text for u in units][-1] == "host  analytics  metabase  10.8.3.0/24"
    # two spaces after a full stop are no columns
    prose = split_units("Moved to Denver.  Love it here.  The light is great.")
    assert all(not u.line for u in prose)
