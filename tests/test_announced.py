"""Announced changes anchored on the question: the text rule (``gcmem.facts.announced``) with
the near misses that must stay still true, and the query-time stage's unit rule."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from gcmem import Memory
from gcmem.facts.announced import (
    AnswerChange,
    announced_values,
    announcement,
    answers,
    mentions_old_value,
    question_frame,
    revision,
    with_names,
)
from gcmem.facts.wording import root, said_stems, values
from gcmem.filters.announced import STAGE, AnnouncedChangeFilter
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.registry import build_filters
from gcmem.models import ScoredChunk, StaleSentence, Turn
from gcmem.normalize import word_stem
from gcmem.storage.ledger.policy import PolicyTable
from tests.conftest import make_settings
from tests.doubles import T0, HashingEmbedder, scored_chunk

NS = "ns"
cand = scored_chunk


def ctx(query: str) -> QueryContext:
    return QueryContext(query=query, namespace=NS, as_of=T0 + timedelta(days=365))


def assert_change(found: AnswerChange | None, change: tuple[str, str] | None) -> None:
    """``found`` is no change where ``change`` is None, else that one old and new value."""
    if change is None:
        assert found is None
    else:
        assert found is not None
        assert (found.old_values, found.new_values) == ((change[0],), (change[1],))


PORT = "Which port does the ledger service listen on?"


def apply(candidates: list[ScoredChunk], query: str = PORT) -> FilterOutcome:
    """The stage on ``candidates`` for ``query`` (the ledger service's port by default)."""
    return AnnouncedChangeFilter().apply(candidates, ctx(query))


# (question, older statement, newer statement): the newer announces a new value.
REPLACED = [
    (
        "Who coaches the chess club?",
        "The chess club is coached by Mr. Varga.",
        "Ms. Lindgren is taking over the chess club this term.",
    ),
    # "Which X <verb>s Y?": the type word is the verb's subject, Y the question's subject
    (
        "Which team owns ledger-api?",
        "ledger-api is owned by team Kestrel.",
        "Ownership of ledger-api was transferred to team Osprey this morning.",
    ),
    # a number with a thousands separator is one value, not two ("1" is no shared answer)
    (
        "How much is the gym membership?",
        "The gym membership is $1,200 a year.",
        "The gym membership is now $1,350 a year.",
    ),
    (
        "What day is the pottery class?",
        "The pottery class is on Tuesdays.",
        "The pottery class got rescheduled to Thursdays.",
    ),
    # "shifted" says the value moved, as "moved" does
    (
        "What day is Lena's piano lesson?",
        "Lena's piano lesson is Tuesday at 4, I'll do pickup.",
        "Piano got shifted to Thursday afternoons because the teacher took a school job.",
    ),
    # "mine" stands for the subject a sentence named before it ("my old dentist")
    (
        "Who is my dentist?",
        "My dentist is Dr. Okafor, she's great with nervous patients.",
        "My old dentist retired in the spring, so mine is Dr. Lindqvist now.",
    ),
    # a room is named or numbered
    (
        "Which room is the Chem 201 lab in?",
        "Chem 201 lab is in Hall B room 114, wear closed shoes.",
        "Chem 201 lab has been moved to room 230 in the Sciences annex.",
    ),
    # a number goes up or down; "went" after the subject is its verb, not a thing it names
    (
        "How much is the rent?",
        "Rent is $1,850 a month, due on the 1st.",
        "Lease renewal came through and rent went up to $1,975 starting in August.",
    ),
    # a time of day answers "when" (a habit's change); "usually" is no part of the subject,
    # and "running" is the verb "run"
    (
        "When do I usually go running?",
        "I run in the mornings before work, usually 5k.",
        "Switched to evening runs since the new job.",
    ),
    (
        "When does Nadia swim?",
        "Nadia swims at lunch most days.",
        "Nadia moved her swim to the evening now that the pool is quieter.",
    ),
    # an irregular past form is its verb's ("is sent through" answers "What ... sends ...?")
    (
        "Which service sends the club newsletter?",
        "The club newsletter is sent through Listmonk every month.",
        "We switched the club newsletter over to Ghost.",
    ),
    # more change words: relocated, upped, rebooked, handed over
    (
        "Which city does Ravi live in?",
        "Ravi lives in Pune, near his parents.",
        "Ravi relocated to Hyderabad for the new job.",
    ),
    (
        "What is the rate limit on the search API?",
        "The search API rate limit is 200 requests per minute.",
        "Ops upped the search API rate limit to 500 requests per minute.",
    ),
    # an adverb after the subject's name modifies no thing of it
    (
        "Which city does Tomas live in?",
        "My cousin Tomas lives in Graz, near the old town.",
        "Tomas finally moved to Linz in May.",
    ),
    (
        "Which port does the ledger service listen on?",
        "The ledger service listens on 7001 inside the cluster.",
        "We moved the ledger service to port 7443 last night.",
    ),
    (
        "Where does Ilse work?",
        "My friend Ilse works at Siemens in the Munich office.",
        "Ilse is at Bosch now, she started in March.",
    ),
    (
        "What day is the book club?",
        "Our book club is on Tuesday evenings at the library.",
        "Book club meets on Wednesdays now because the library closes early.",
    ),
    (
        "Which team is Anouk on?",
        "Anouk is on the Search team, ask her about ranking.",
        "Anouk got moved to the Billing team in the reshuffle.",
    ),
    (
        "What's the retention period for audit logs?",
        "Audit logs have a retention period of 90 days in the SIEM.",
        "Security raised the audit logs retention period to 365 days.",
    ),
    (
        "Where is the team wiki hosted?",
        "The team wiki is hosted on Confluence, ask IT for access.",
        "The team wiki is hosted on Notion going forward.",
    ),
    # "the user" is the memory's first person
    (
        "Which gym does the user train at?",
        "I train at Ironside Gym three times a week.",
        "I switched my training to Corefit Gym.",
    ),
    # the announcing clause opens on a pronoun; the sentence names the subject
    (
        "Where does Ilse work?",
        "Ilse works at Siemens in Munich.",
        "Had coffee with Ilse, she's at Bosch these days.",
    ),
    # a two-word subject named by one bare word; a time keeps its colon
    (
        "When is the weekly retro?",
        "Our weekly retro is at 16:00 on Fridays.",
        "We moved retro to 14:30 so the Berlin folks can join.",
    ),
    # a title is no value: the name after it changed
    (
        "Who is the kids' dentist?",
        "The kids' dentist is Dr. Okafor on Main Street.",
        "The kids' dentist is Dr. Lindqvist now, near the school.",
    ),
    # the question's verb stands for its type word
    (
        "Which city does Marta live in?",
        "Marta lives in Valencia with her partner.",
        "Marta lives in Bilbao now, closer to her parents.",
    ),
    # stop 40
    # one bare word of a three-word subject, after nothing that would make it another thing
    (
        "What day is Leo's soccer practice?",
        "Leo's soccer practice is on Wednesdays at Kessler Park.",
        "Practice got moved to Tuesdays for the spring season.",
    ),
    # a question with only a type word and its owner ("Figma plan")
    (
        "Which Figma plan are we on?",
        "We're on the Figma Professional plan, billed yearly.",
        "Figma is on the Organization plan now.",
    ),
    # "new" announces; words the newer says again are no old answer
    (
        "Who is my GP?",
        "My GP is Dr. Alvarez at Northside Clinic.",
        "New GP is Dr. Okafor, same clinic, very thorough.",
    ),
    # a value's shape says the type word: "#inc-room" is a channel
    (
        "Which Slack channel do we use for incidents?",
        "Incident updates go in #inc-room, the on-call watches it.",
        "Incidents now go to #sev-desk.",
    ),
    # "from August" dates the new value
    (
        "How much is the rent?",
        "Rent is $1,450 a month.",
        "Rent goes to $1,560 from August.",
    ),
    # a change in progress
    (
        "Where is the team offsite?",
        "The team offsite is in Denver this year.",
        "The team offsite is relocating to Asheville.",
    ),
    # when the question is asked and the rate of its answer are no words of its subject; a
    # hostname is the host
    (
        "Which city does Ines live in these days?",
        "My sister Ines lives in Porto, like twenty minutes from the beach, lucky her.",
        "Update on Ines: she has settled in Lyon now, took the nursing job at Croix-Rousse.",
    ),
    (
        "What's the hostname of the prod database?",
        "Prod database host is db-main-01, read replicas hang off it.",
        "During Saturday's migration the prod db host was renamed to pg-primary-a.",
    ),
    (
        "How much is the climbing gym membership per month?",
        "The climbing gym membership is $72 for unlimited access.",
        "The climbing gym membership got bumped to $89 starting March.",
    ),
    # a number says "number" by its kind, the value set off by commas after the room, and a
    # number right after a place's type word is the place ("room 108")
    (
        "What's Grandma's room number?",
        "Grandma's room at Willow Creek is 214.",
        "They moved Grandma to a ground floor room, 108, easier with the walker.",
    ),
    # a number right after "number" is the number
    (
        "What is our allotment plot number?",
        "Our allotment is plot number 23 at Hollins Lane, the one with the blue shed.",
        "The council redrew the plots and ours moved to number 41, next to the water trough.",
    ),
    # "now that": the state it gives is the present one
    (
        "Which Sentry plan are we on?",
        "We're on the Developer plan for Sentry, so only 5k errors a month.",
        "We're on the Team plan for Sentry now that error volume tripled.",
    ),
    # what holds from here on
    (
        "Where is Leo's soccer practice?",
        "Leo's soccer practice is at Riverside Park, field 3.",
        "Fields are being reseeded so practice is at Oakmont Middle School for the rest of the "
        "season.",
    ),
    (
        "What day is design critique?",
        "Design critique is every Tuesday at 3pm in the Fishbowl room.",
        "FYI design critiques are on Wednesdays from here on out.",
    ),
    # "once" of a past event, no condition
    (
        "Which Mailchimp plan is the studio newsletter on?",
        "The studio newsletter is on Mailchimp's Essentials plan.",
        "Once we passed 480 subscribers I switched the studio newsletter over to Standard.",
    ),
    # a word right after "called" or "renamed to" is a name however it is written
    (
        "What's the name of the internal deploy CLI?",
        "Our internal deploy CLI is called deployctl, it reads creds from Vault on your laptop.",
        "The deploy CLI has been renamed to shipit; brew upgrade will pull the new binary.",
    ),
    # a condition about another thing leaves the answer beside it
    (
        "Where is the team wiki hosted?",
        "Team wiki is hosted on Confluence, ask Marco if you need an account.",
        "Migration's finished: the wiki now lives in Notion.",
    ),
    # a preposition after the subject modifies nothing ("moved the session cache onto port")
    (
        "What port does the session cache listen on?",
        "The session cache Redis listens on 6379, same as the default.",
        "Heads up: ops moved the session cache onto port 6380 so it stops clashing with the "
        "queue Redis on that box.",
    ),
    # an amount per period says the monthly, daily or weekly value
    (
        "What's the monthly limit on the corporate card?",
        "My corporate card limit is $2,500 a month, so book hotels early.",
        "Finance raised the limit on my corporate card to $5,000 since I'm doing the client "
        "travel now.",
    ),
    (
        "What time is the daily standup?",
        "Standup is at 9:15 every day in the small room by the kitchen.",
        "Moved standup to 9:45 so the Lisbon folks can join without rushing off the train.",
    ),
    # a floor is numbered in order; "ours" joined to a clause stands for the thing asked
    (
        "Which floor does the platform team sit on?",
        "The platform team sits on the 4th floor, east wing, past the lifts.",
        "Desks got reshuffled over the weekend and ours moved to the 7th floor, right by the "
        "kitchen.",
    ),
    # an amount of money says what a thing costs
    (
        "How much does my gym membership cost per month?",
        "My gym membership is $35 a month, which honestly isn't bad for the area.",
        "Membership got bumped to $42 a month starting July.",
    ),
    # a statement may leave out one modifier of a long subject, not the thing itself
    (
        "What is the rate limit for partner API keys?",
        "Partner API keys are capped at 600 requests per minute; anything over that gets a 429.",
        "Ops raised the limit on partner keys to 1500 requests per minute after the Acme "
        "escalation.",
    ),
    # a noun inside the subject's own name ("Billing cluster Grafana")
    (
        "Which port is the billing Grafana on?",
        "Billing cluster Grafana is reachable on port 3000, but only from the VPN.",
        "Ops moved the billing Grafana to port 3300 because the new auth proxy grabbed the old "
        "one.",
    ),
    # an extension is a number
    (
        "What's my desk phone extension?",
        "My desk extension is 4417 if you need to grab me quickly.",
        "Everyone's desk extension changed with the new phone system, mine is 5230 now.",
    ),
    # "it" after a change of the subject's attribute is the attribute
    (
        "What's the wifi password at the cabin?",
        "cabin wifi: network is LakeHouse-5G, password pinecone77",
        "Dad changed the cabin wifi password, it's larkspur2024 now.",
    ),
]

# (question, older statement, newer statement): the older statement stays still true.
STILL_TRUE = [
    # a name that ends in the subject's common noun is another thing
    (
        "Where is the studio based?",
        "The studio is based in Digbeth, Birmingham.",
        "new Mac Studio arrived for the colour suite",
    ),
    # a new value for some cases beside the old one for the rest
    (
        "Which channel does the release bot post prod releases to?",
        "The release bot posts every prod release to #deploys with the diff link.",
        "The release bot now posts to #payments-eng for anything touching the billing repos.",
    ),
    # what changed comes before "bumped to": cert-manager is no new deploy tool
    (
        "What tool are our clusters deployed with?",
        "Our clusters are deployed with Argo CD, app-of-apps pattern in the platform repo.",
        "cert-manager bumped to 1.11 across all clusters.",
    ),
    (
        # "What does X do?" asks what he does: the city he is said with is no answer to it
        "What does my brother-in-law Tobias do?",
        "My brother-in-law Tobias is an architect in Hamburg.",
        "Tobias designed the new library extension in Altona, just won an award.",
    ),
    # "this morning" dates a diary entry; it is no new time for the retro
    (
        "When is the retro?",
        "The retro is on Friday at 16:00.",
        "Had a long retro this morning, lots of action items.",
    ),
    # a number right after the subject's name is its version, not a new port
    (
        "Which port does staging Postgres listen on?",
        "staging Postgres listens on 5433 so it doesn't clash with anyone's local instance",
        "both databases are on Postgres 15 now",
    ),
    # "started" adds as often as it replaces (a multi-valued attribute): no change word
    (
        "Which languages do I speak?",
        "I speak Portuguese with my parents.",
        "I have started speaking some Japanese with my tutor.",
    ),
    # another service's ownership moved
    (
        "Which team owns ledger-api?",
        "ledger-api is owned by team Kestrel.",
        "Ownership of billing-api was transferred to team Osprey this morning.",
    ),
    # another subject of the same kind (parallel keys): the newer clause names the other one
    (
        "Which port does the staging gateway listen on?",
        "The staging gateway listens on 8081.",
        "We moved the production gateway to port 9443.",
    ),
    # the question's subject modifies another thing in the older statement
    (
        "Which port does the ledger service listen on?",
        "The ledger service's metrics exporter listens on 9100.",
        "We moved the ledger service to port 7443 last night.",
    ),
    (
        "What's the band called?",
        "Band rehearsal is at Marco's place on Sundays.",
        "The band is called Velvet Coast from now on.",
    ),
    # the value holds on, is shared, hedged or negated
    (
        "Where does Ilse work?",
        "Ilse's husband Tom still works at Siemens too.",
        "Ilse is at Bosch now, she started in March.",
    ),
    (
        "Where does Ilse work?",
        "Ilse works at Siemens.",
        "Ilse might switch to Bosch next year.",
    ),
    (
        "Which team is Anouk on?",
        "Anouk is on the Search team.",
        "Anouk did not move to the Billing team after all.",
    ),
    # the older statement does not answer the question (no type word, no verb)
    (
        "Which team is Anouk on?",
        "Anouk is based in the Lisbon office.",
        "Anouk got moved to the Billing team in the reshuffle.",
    ),
    # no change word: a second statement, not an announcement
    (
        "Where does Ilse work?",
        "Ilse works at Siemens.",
        "Ilse works at Bosch on weekends.",
    ),
    # the same value: a restatement
    (
        "Which team is Anouk on?",
        "Anouk is on the Search team.",
        "Anouk is on the Search team now, for good.",
    ),
    # the announced value is of another kind than the answer (a day for a port question)
    (
        "Which port does the ledger service listen on?",
        "The ledger service listens on 7001.",
        "We moved the ledger service deploys to Thursday.",
    ),
    # a bare word stands for a two-word subject only when nothing else modifies it
    (
        "When is the weekly retro?",
        "Our weekly retro is at 16:00 on Fridays.",
        "We moved the design retro to 14:30.",
    ),
    # the pronoun's sentence does not name the subject
    (
        "Where does Ilse work?",
        "Ilse works at Siemens in Munich.",
        "Had coffee with Tom, he's at Bosch these days.",
    ),
    # the newer clause is about another thing of the subject ("the billing worker pool")
    (
        "Which port does the billing API listen on?",
        "The billing API listens on 8443 behind the gateway.",
        "The billing worker pool got bumped to 12 replicas.",
    ),
    # the new value names another thing ("the Leeds office"), not a new employer
    (
        "Where does Ilse work?",
        "Ilse works at Siemens in the audit group.",
        "Ilse moved to the Leeds office, a shorter commute for her.",
    ),
    # the question asks where the answer holds ("for the back office", "in Lisbon"): a newer
    # clause for somewhere else is another of several values
    (
        "Which origin does CORS allow for the back office?",
        "CORS now allows https://admin.example.dev for the back office.",
        "CORS now allows http://localhost:5173 for local development.",
    ),
    (
        "Which language did Omar learn in Lisbon?",
        "Omar learned Portuguese while living in Lisbon for his master's.",
        "Omar is doing a Japanese evening class now, just for fun.",
    ),
    # the subject's new thing of another kind ("Kiwi's new groomer"), not its answer
    (
        "Who is Kiwi's vet?",
        "Kiwi's vet is Dr. Patel at Bayview Animal Hospital.",
        "Kiwi's new groomer is Suds & Paws now.",
    ),
    # an irregular form that is also another word is not read as a verb ("left" lane)
    (
        "Which lane does the ferry leave from?",
        "The ferry leaves from Pier 3 at the harbour.",
        "The left lane to Pier 5 is closed now.",
    ),
    # something added, not a value replaced
    (
        "Who owns billing-api?",
        "billing-api is owned by the Payments Core team.",
        "billing-api now has a new on-call alias, @pay-core-oncall.",
    ),
    # the clause leaves out the attribute a "what is the X of Y" question asks about
    (
        "What's the URL of the staging Kibana?",
        "The staging kibana URL is kibana.stg.internal:5601.",
        "Kibana got upgraded to v8 in staging.",
    ),
    # the older value sits in a clause about something else ("his dog Rufus")
    (
        "What kind of music does Omar play?",
        "Omar plays jazz piano - he practises with his dog Rufus listening.",
        "Omar switched to Yamaha keyboards now.",
    ),
    # the newer statement names the old answer again, with a detail ("Year 3 at Oakwood")
    (
        "Which school does Mia go to?",
        "Mia goes to Oakwood Primary on Mill Lane.",
        "Mia is now in Year 3 at Oakwood, in Mrs. Khan's class.",
    ),
    # the new value is the modifier of an object noun ("Gradle dependencies")
    (
        "What OS do the build runners use?",
        "All build runners use Debian 12.",
        "The runners now cache Maven dependencies on a shared disk.",
    ),
    # without the type word and without the verb, the older statement answers nothing asked
    (
        "Which city does Marta live in?",
        "Marta studied in Valencia.",
        "Marta lives in Bilbao now.",
    ),
    # stop 40
    # "from" dates a change only before a month, a weekday, today or tomorrow
    (
        "Which team is Oleg on?",
        "Oleg is on the Payments team.",
        "Oleg borrowed two engineers from Marketing for the launch.",
    ),
    # wishes and possibilities announce nothing
    (
        "Which plate reader do we run the ELISA assays on?",
        "We run the ELISA assays on the Tecan plate reader.",
        "We'd love to run the ELISA assays on the new BMG reader.",
    ),
    (
        "Where do we do the big food shop?",
        "We do the big food shop at Aldi on Saturdays.",
        "We may end up doing the big food shop at Lidl once the new one opens.",
    ),
    # a day of the month is no amount
    (
        "How much is the rent?",
        "Rent is due on the 1st, late fee after the 5th.",
        "Rent goes to $1,560 from August.",
    ),
    # one bare word after a word of its own is another thing: "piano practice"
    (
        "What day is Leo's soccer practice?",
        "Leo's soccer practice is on Wednesdays at Kessler Park.",
        "Piano practice got moved to Tuesdays.",
    ),
    # "New" inside a sentence before another capitalised word is part of a name, no cue
    (
        "On what TV quiz show did Mike Bongiorno host?",
        "Mike Bongiorno was an Italian-American television host.",
        "Bongiorno was born in New York City to parents of Italian descent.",
    ),
    # a number after the subject's own name is its version, not a new value
    (
        "Which Postgres version does the billing database run?",
        "The billing database runs Postgres 14.",
        "The billing database moved to the new cluster, Postgres 14 still, 16 planned.",
    ),
    # a number of another shape than the question's type word ("12GB" is no port)
    (
        "What port does staging Redis listen on?",
        "Staging Redis listens on 6380 so it doesn't clash with the local one.",
        "dump of staging is 12GB now, we should trim the cache keys",
    ),
    # a value set off by commas that is no bare value joins nothing
    (
        "What's Grandma's room number?",
        "Grandma's room at Willow Creek is 214.",
        "They moved Grandma's chair to the lounge, 108 was too cramped for it.",
    ),
    # for the rest of the season, but of another thing
    (
        "Where is Leo's soccer practice?",
        "Leo's soccer practice is at Riverside Park, field 3.",
        "Leo's swim lessons are at the Y for the rest of the season.",
    ),
    # the question's owner named alone: another thing of hers changed
    (
        "What time does Ellie's school day start?",
        "Ellie's school day starts at 8:40, gates open at 8:25.",
        "Ellie says lunch moved to 12:15 now because of the new sitting rota.",
    ),
    # a negated value beside the answer still refuses it ("not Maine")
    (
        "Which city does Sam live in?",
        "Sam lives in Portland - the Oregon one, not Maine, people always mix it up",
        "Sam just moved into a new apartment in the Pearl District, has a balcony",
    ),
    # a change on a condition is no change yet
    (
        "Which Mailchimp plan is the studio newsletter on?",
        "The studio newsletter is on Mailchimp's Essentials plan.",
        "Once we pass 500 subscribers the studio newsletter moves to Standard.",
    ),
    # an attempt at a change is none
    (
        "What food does Biscuit eat?",
        "Biscuit eats Lily's Kitchen, the chicken casserole one, half a tin morning and evening",
        "Tried moving Biscuit onto Purina Gourmet because it was on offer.",
    ),
    # a time's zone names nothing
    (
        "What is the staging database called?",
        "Staging DB backups run nightly at 02:00 UTC and are kept for a week.",
        "Heads up: the staging database was renamed to orion-stg as part of the new "
        "constellation naming scheme.",
    ),
    # "how long" asks for a span of time, not an amount
    (
        "How long is an on-call shift?",
        "On-call gets a stipend of $400 per shift.",
        "New quarter, new schedule: on-call rotations are two weeks long now, with a secondary "
        "for backup.",
    ),
    # the subject's last word is the thing itself: no statement leaves it out
    (
        "What is the design system package called?",
        "Storybook for the design system is at design.acme.dev.",
        "We renamed the design system package to @acme/foundations, please update your imports.",
    ),
    # what is asked of the subject names no subject ("is now run by")
    (
        "Who runs the office film club?",
        "Film club is run by Desmond from accounting.",
        "The board game night is now run by Petra.",
    ),
    # another thing of the subject ("Rate limit on notifications-gw")
    (
        "Which port does the notifications-gw gRPC API listen on?",
        "The notifications-gw gRPC API listens on port 7443 inside the mesh.",
        "Rate limit on notifications-gw raised to 300 rps per caller after the Black Friday "
        "load test.",
    ),
    # the asked thing of another service, or said inside another thing's identifier
    (
        "What's the hostname of the analytics Redis cache?",
        "the cache for analytics lives on redis-an-1.int.acme.io",
        "new cache host for the feature-flag service: redis-ff-2.int.acme.io",
    ),
    (
        "What's the hostname of the analytics Redis cache?",
        "the cache for analytics lives on redis-an-1.int.acme.io",
        "Sessions cache moved to redis-sess-3.int.acme.io this morning.",
    ),
    # a room's name is nobody's, a TA is another role
    (
        "Who runs the weekly design sync?",
        "The design sync is run by Hye-jin, she sets the agenda",
        "Starting next week the sync moves to a new room, Juniper, 3rd floor",
    ),
    (
        "Who teaches CS 341?",
        "CS 341 has weekly labs in C, the first one is writing a shell",
        "New TA for 341 is Priyanka, she runs the Wednesday lab section now",
    ),
    # a subject word as the question does not write it ("a paddle", "the paddling group")
    (
        "Which river does the Saturday paddling group launch on?",
        "The Saturday group launches on the River Wye at the slipway below Hay-on-Wye bridge.",
        "Someone left a paddle at the Glasbury take-out, it's in the container now.",
    ),
]


def test_the_owner_named_with_the_thing_still_announces() -> None:
    frame = question_frame("What time does Ellie's school day start?")
    assert frame is not None and "elli" in frame.owners
    older = "Ellie's school day starts at 8:40, gates open at 8:25."
    found = announcement(frame, older, "Ellie's school day now starts at 8:50, new head.")
    assert found is not None and found.new_values == ("8:50",)


@pytest.mark.parametrize(("question", "older", "newer"), REPLACED)
def test_an_announced_value_replaces_the_answer(question: str, older: str, newer: str) -> None:
    frame = question_frame(question)
    assert frame is not None
    found = announcement(frame, older, newer)
    assert found is not None, (older, newer)
    assert set(found.old_values).isdisjoint(found.new_values)


@pytest.mark.parametrize(("question", "older", "newer"), STILL_TRUE)
def test_near_misses_stay_still_true(question: str, older: str, newer: str) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert announcement(frame, older, newer) is None


POLICY = (
    "Remote work policy. Staff may work from home up to two days per week, agreed with "
    "their lead in advance. Core hours are 10:00 to 16:00 local time. Laptops and "
    "monitors for home can be expensed once a year."
)
POLICY_REVISED = (
    "Remote work policy (revised). Staff can work from home up to three days per week, "
    "as agreed with their lead in advance. Core hours stay 10:00 to 16:00 local time. "
    "Laptops and monitors for home may be expensed once a year."
)


def test_a_revised_paragraph_replaces_the_older_version() -> None:
    frame = question_frame("How many days per week can staff work from home?")
    assert frame is not None
    found = revision(frame, POLICY, POLICY_REVISED)
    assert found is not None
    assert found.index == 1 and "two days" in found.statement
    assert (found.change.old_values, found.change.new_values) == (("two",), ("three",))


def test_a_labelled_paragraph_and_a_count_of_one_are_revised_too() -> None:
    # a label over sentences is a paragraph of statements, each with its counterpart
    frame = question_frame("Where is Lila Marchetti based?")
    assert frame is not None
    about = "About: Lila Marchetti is a fiddle player based in {}. She grew up in Ohio."
    found = revision(frame, about.format("Austin"), about.format("Nashville"))
    assert found is not None and found.change.new_values == ("Nashville",)
    frame = question_frame("How many approving reviews does a PR into main need?")
    assert frame is not None
    rules = "Code review: every PR into main needs {}. Reviewers respond within a working day."
    found = revision(
        frame, rules.format("one approving review"), rules.format("two approving reviews")
    )
    assert found is not None
    assert (found.change.old_values, found.change.new_values) == (("one",), ("two",))


def test_revision_near_misses() -> None:
    frame = question_frame("How many days per week can staff work from home?")
    assert frame is not None
    # the older paragraph says something the newer does not restate
    extra = POLICY + " Fridays are meeting-free for everyone."
    assert revision(frame, extra, POLICY_REVISED) is None
    # the same paragraph again: no change
    assert revision(frame, POLICY, POLICY) is None
    # a value changed in a statement the question does not ask about
    hours = POLICY.replace("16:00", "17:00")
    assert revision(frame, POLICY, hours) is None
    # a parallel paragraph about another subject
    bios = question_frame("Where does Dr. Ana Ruiz teach?")
    assert bios is not None
    ana = (
        "Dr. Ana Ruiz is an associate professor of geology at the University of Leeds. "
        "She studies glacial sediments and runs the department's field course."
    )
    ben = (
        "Dr. Ben Cole is an associate professor of geology at the University of York. "
        "He studies glacial sediments and runs the department's field course."
    )
    assert revision(bios, ana, ben) is None
    ana_moved = ana.replace("University of Leeds", "University of Bristol")
    assert revision(bios, ana, ana_moved) is not None


ESCALATION = (
    "Escalation policy. For any paying customer, the duty manager names an owner within the "
    "first five minutes. The owner sends the customer a first reply within 40 minutes of "
    "the report, then updates them every two hours. Notes go to the shared tracker."
)


def test_a_revision_may_change_a_value_of_a_kind_the_question_does_not_name() -> None:
    # "How quickly" names no number, but the one statement whose values changed says one
    frame = question_frame("How quickly must the owner send the customer a first reply?")
    assert frame is not None and frame.kinds == {"name"}
    revised = (
        "Escalation policy (revised). For every paying customer, the duty manager names an "
        "owner in the first five minutes. The owner sends the customer a first reply within "
        "20 minutes of the report, then updates them every two hours. Notes go to the shared "
        "tracker."
    )
    found = revision(frame, ESCALATION, revised)
    assert found is not None and found.index == 2
    assert (found.change.old_values, found.change.new_values) == (("40",), ("20",))
    # two statements' values changed: which one the question asks about is not known
    both = revised.replace("first five minutes", "first ten minutes")
    assert revision(frame, ESCALATION, both) is None
    # lines of code: two files' lines are no revision of one another
    email = "```java\n// notify/EmailSender.java\nprivate static final int MAX_BATCH = 50;\n```"
    sms = email.replace("EmailSender", "SmsSender").replace("50", "250")
    batch = question_frame("What is MAX_BATCH in EmailSender?")
    assert batch is not None and revision(batch, email, sms) is None


def test_only_wh_questions_have_a_frame() -> None:
    assert question_frame("ledger service port") is None
    assert question_frame("The ledger service listens on 7001.") is None
    frame = question_frame("Which port does the ledger service listen on?")
    assert frame is not None
    assert frame.head == {"port"}
    assert frame.kinds == {"number"}
    assert frame.verb == "listen" and "listen" not in frame.subject
    assert question_frame("What's the band called?") is not None  # "what's" = "what is"
    assert question_frame("On which day is the code freeze?") is not None
    # a preposition governs the last word: no verb
    incidents = question_frame("Which Slack channel do we use for incidents?")
    assert incidents is not None and incidents.verb is None
    mine = question_frame("What phone plan am I on?")
    assert mine is not None and mine.subject == {"user"}
    # no auxiliary: "Which <type> <verb>s <subject>?"
    owns = question_frame("Which cloud provider hosts the wiki?")
    assert owns is not None
    assert (owns.head, owns.verb, owns.subject) == ({"cloud", "provider"}, "host", {"wiki"})


def test_the_answer_needs_the_type_word_or_a_value_of_its_kind() -> None:
    frame = question_frame("What day is the book club?")
    assert frame is not None and frame.kinds == {"day"}
    assert answers(frame, "Our book club is on Tuesday evenings.")  # a weekday says "day"
    team = question_frame("Which team is Anouk on?")
    assert team is not None
    assert answers(team, "Anouk is on the Search team.")
    assert not answers(team, "Anouk works with Pedro.")  # no "team": another attribute


def test_values_have_kinds() -> None:
    found = [
        (v.kind, v.key)
        for v in values("Moved acme-raw-events to Thursdays, port 8443, see Priya in May.")
    ]
    assert ("name", "acme-raw-events") in found
    assert ("day", "thursday") in found
    assert ("number", "8443") in found
    assert ("name", "priya") in found
    assert not any(v == "may" for _, v in found)  # "may" is a modal far more often
    assert not any(v == "moved" for _, v in found)  # a sentence's first word is no name
    assert ("number", "10:15", "10:15") in values("Standup is at 10:15 now.")
    assert [v.key for v in values("Rent is $1,450, due on the 1st.")] == ["1,450", "1st"]
    (priya,) = values("We met Priya.")
    assert (priya.key, priya.text) == ("priya", "Priya")  # compared folded, shown as written
    # "one" counts after a word that asks for an amount, before what it counts
    assert ("number", "one") in [
        (v.kind, v.key) for v in values("Every PR needs one approving review.")
    ]
    assert values("Reviewers respond within one working day.")[0].key == "one"
    for text in ("the one on the left", "one of them left", "no one came", "I only have one"):
        assert values(text) == []


def test_short_forms_are_read_as_written_and_a_rate_says_its_period() -> None:
    assert root("min") == root("mins") == "minimum"
    assert root("mine") != root("min")  # "my weekends are actually mine"
    assert {"monthly", "daily"} <= said_stems("$35 a month, standup every day")


def test_word_stem_compares_inflections() -> None:
    assert word_stem("listens") == word_stem("listen")
    assert word_stem("hosted") == word_stem("host")
    assert word_stem("cities") == word_stem("city")
    assert word_stem("Priya's") == "priya"
    assert word_stem("payments-api") == "payments-api"  # code tokens stay whole


def test_stage_excises_the_statement_and_keeps_the_rest() -> None:
    old = cand("The ledger service listens on 7001. It writes to the events topic.", 0)
    new = cand("We moved the ledger service to port 7443 last night.", 5)
    outcome = apply([old, new])
    assert outcome.dropped == []
    kept_old = next(c for c in outcome.kept if c.id == old.id)
    (stale,) = kept_old.stale_sentences
    assert stale.stage == STAGE
    assert stale.text == "The ledger service listens on 7001."
    assert stale.value == "7001" and stale.current_value == "7443"
    assert stale.superseded_by == new.id and stale.since == new.chunk.ts
    assert "7001" not in kept_old.visible_text
    assert "It writes to the events topic." in kept_old.visible_text


def test_stage_drops_a_chunk_whose_every_statement_is_superseded() -> None:
    old = cand("The ledger service listens on 7001.", 0)
    new = cand("We moved the ledger service to port 7443 last night.", 5)
    outcome = apply([old, new])
    assert [c.id for c in outcome.kept] == [new.id]
    (decision,) = outcome.dropped
    assert decision.stage == STAGE and decision.dominated_by == new.id
    assert "7001 -> 7443" in decision.reason


def test_a_value_of_a_frame_that_accumulates_is_announced_over_nothing() -> None:
    # a queue's consumers are several (the built-in multi-valued table): one more starting
    # with a release replaces none; with the table off, "starting" announces a replacement
    question = "Which service credits loyalty points off the order-events queue?"
    old = cand("`order-events` queue is consumed by loyalty-svc - points get credited off it.", 0)
    new = cand("`order-events` queue is consumed by fraud-scorer starting with the release.", 5)
    outcome = apply([old, new], question)
    assert outcome.dropped == [] and all(c.stale_sentences == () for c in outcome.kept)
    latest = AnnouncedChangeFilter(PolicyTable(known_multi_valued=False))
    assert [d.chunk.id for d in latest.apply([old, new], ctx(question)).dropped] == [old.id]


def test_stage_marks_the_latest_announcement() -> None:
    a = cand("The ledger service listens on 7001.", 0)
    b = cand("We moved the ledger service to port 7443.", 3)
    c = cand("We moved the ledger service to port 8443 this morning.", 6)
    outcome = apply([a, b, c])
    (decision,) = [d for d in outcome.dropped if d.chunk.id == a.id]
    assert decision.dominated_by == c.id
    assert "8443" in decision.reason


def test_stage_leaves_older_announcements_and_equal_times() -> None:
    # the newer chunk is the old value: time order decides, not the words
    new = cand("We moved the ledger service to port 7443.", 0)
    old = cand("The ledger service listens on 7001.", 5)
    same = cand("The ledger service listens on 7002.", 0)
    outcome = apply([new, old, same])
    assert outcome.dropped == []
    assert all(not c.stale_sentences for c in outcome.kept)


def test_new_opening_a_clause_is_still_a_cue() -> None:
    frame = question_frame("Who is the user's GP?")
    assert frame is not None
    found = announcement(frame, "My GP is Dr. Alvarez.", "New GP is Dr. Okafor, same clinic.")
    assert found is not None and "Okafor" in found.new_values


def test_stage_drops_a_revised_paragraph() -> None:
    old = cand(POLICY, 0)
    new = cand(POLICY_REVISED, 30)
    outcome = apply([old, new], "How many days per week can staff work from home?")
    assert [c.id for c in outcome.kept] == [new.id]
    (decision,) = outcome.dropped
    assert decision.stage == STAGE and decision.dominated_by == new.id
    assert decision.reason.startswith("revised by a newer version of the paragraph")


def test_stage_does_nothing_without_a_question() -> None:
    old = cand("The ledger service listens on 7001.", 0)
    new = cand("We moved the ledger service to port 7443.", 5)
    outcome = apply([old, new], "ledger service port")
    assert outcome.kept == [old, new] and outcome.dropped == []


def test_stage_does_not_mark_a_statement_twice() -> None:
    old = cand("The ledger service listens on 7001. It writes to the events topic.", 0)
    earlier = StaleSentence(
        index=0, text="The ledger service listens on 7001.", key="k", value="7001"
    )
    old = old.model_copy(update={"stale_sentences": (earlier,)})
    new = cand("We moved the ledger service to port 7443.", 5)
    outcome = apply([old, new])
    kept_old = next(c for c in outcome.kept if c.id == old.id)
    assert kept_old.stale_sentences == (earlier,)


def test_the_stage_is_registered_and_in_the_default_chain() -> None:
    from gcmem.settings import Settings

    assert STAGE in Settings().memory.filters
    # the stage reads the deployment's resolution policies and its ledger, nothing else of
    # what it is built from
    given = SimpleNamespace(policies=PolicyTable(), ledger=None)
    (stage,) = build_filters([STAGE], resources=given)  # type: ignore[arg-type]
    assert isinstance(stage, AnnouncedChangeFilter)


CITY = "Which city does Ilse live in?"


def test_stage_excises_older_mentions_of_an_announced_old_value() -> None:
    answer = cand("Ilse lives in Leipzig, near the zoo.", 0)
    mention = cand("Took the train to Leipzig to see Ilse, five hours each way.", 2)
    other = cand("Ilse plays cello in a string quartet.", 3)
    new = cand("Ilse is in Dresden now, the new job started in May.", 6)
    outcome = apply([answer, mention, other, new], CITY)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}
    (decision,) = [d for d in outcome.dropped if d.chunk.id == mention.id]
    assert decision.dominated_by == new.id and "Leipzig -> Dresden" in decision.reason
    assert {c.id for c in outcome.kept} == {other.id, new.id}


@pytest.mark.parametrize(
    "text",
    [
        "My cousin Jonas moved to Leipzig in March.",  # the question's subject is not named
        "Ilse still visits Leipzig every summer.",  # the old value holds on for something
        "Ilse and her brother both love Leipzig too.",  # shared
        "Ilse might keep a flat in Leipzig.",  # hedged
        "Ilse's brother lives in Leipzig.",  # the subject owns another thing
        "Ilse drove from Leipzig to Dresden with the last boxes.",  # the new value too
        "Ilse loves Leipzig's old town.",  # the old value owns another thing
    ],
)
def test_stage_leaves_what_is_no_mention_of_the_old_answer(text: str) -> None:
    answer = cand("Ilse lives in Leipzig, near the zoo.", 0)
    near = cand(text, 2)
    new = cand("Ilse is in Dresden now, the new job started in May.", 6)
    outcome = apply([answer, near, new], CITY)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]
    (kept_near,) = [c for c in outcome.kept if c.id == near.id]
    assert kept_near.stale_sentences == ()


TEAM = "Which team owns checkout-svc?"


@pytest.mark.parametrize(
    "text",
    [
        "Paged Falcon about the checkout 500s, they're on it.",
        "Had my skip-level with Falcon today, they're pushing hard on latency.",
        "OPS-212 is assigned to Team Falcon.",  # a ticket id is no other thing's name
        # a note's label owns nothing, and the old value may open its body
        "Reminder: Falcon reviews the checkout dashboards in December.",
        "Bug: Falcon pager rota skips the Friday slot, see OPS-998.",
        # the old owner's own wish hedges nothing
        "Falcon wants the checkout alerts routed to their pager before Friday.",
    ],
)
def test_stage_excises_mentions_in_passing_of_an_announced_old_value(text: str) -> None:
    # the sentence does not name checkout-svc, but it takes Falcon for the owner
    answer = cand("checkout-svc is owned by Falcon, the payments crew.", 0)
    mention = cand(text, 2)
    new = cand("checkout-svc moved over to Heron this sprint.", 6)
    outcome = apply([answer, mention, new], TEAM)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}
    (decision,) = [d for d in outcome.dropped if d.chunk.id == mention.id]
    assert decision.dominated_by == new.id and "Falcon -> Heron" in decision.reason


@pytest.mark.parametrize(
    ("question", "old", "text", "new"),
    [
        # another thing named beside the old value: Marta's team, not checkout-svc's
        (
            TEAM,
            "checkout-svc is owned by Falcon.",
            "Marta joined Falcon last month.",
            "checkout-svc moved over to Heron.",
        ),
        # a label that is no note's names the thing the old value is said of
        (
            TEAM,
            "checkout-svc is owned by Falcon.",
            "Marta: Falcon reviews the checkout dashboards in December.",
            "checkout-svc moved over to Heron.",
        ),
        # what the question asks, said of another subject: staging's port
        (
            "Which port does the reporting db listen on?",
            "The reporting db listens on 5433.",
            "staging listens on 5433 as a copy.",
            "The reporting db moved to port 6432.",
        ),
        # a weekday recurs in any diary
        (
            "Which day is the design review?",
            "The design review is on Tuesday.",
            "Dentist on Tuesday at 4.",
            "The design review moved to Thursday.",
        ),
        # a short number could be anything
        (
            "How many replicas does the api run?",
            "The api runs 3 replicas.",
            "Took 3 days off in June.",
            "The api runs 5 replicas now.",
        ),
        # the old value held on for something: refused as when the subject is named
        (
            TEAM,
            "checkout-svc is owned by Falcon.",
            "search-api is still with Falcon.",
            "checkout-svc moved over to Heron.",
        ),
    ],
)
def test_stage_leaves_what_only_shares_the_old_value(
    question: str, old: str, text: str, new: str
) -> None:
    answer = cand(old, 0)
    near = cand(text, 2)
    newer = cand(new, 6)
    outcome = apply([answer, near, newer], question)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]
    (kept_near,) = [c for c in outcome.kept if c.id == near.id]
    assert kept_near.stale_sentences == ()


HOST = "What is the hostname of the staging Postgres database?"


@pytest.mark.parametrize(
    "text",
    [
        # a host is one thing's, whatever else the sentence names
        "Disk on pg-stg-02 hit 85% after the OPS-4411 import, someone clean up temp tables.",
        "Dana from QA says the pg-stg-02 box rebooted twice overnight.",
        # a ticket's line mentions it too
        "OPS-4411: pg-stg-02 memory at 87%, consider reviewing the eviction policy.",
        "psql -h pg-stg-02 -U app orders",
        # a question takes it for granted too
        "my seed script points at pg-stg-02, anyone else seeing timeouts?",
    ],
)
def test_an_identifier_one_thing_has_is_mentioned_whatever_else_is_named(text: str) -> None:
    answer = cand("The staging Postgres database hostname is pg-stg-02.", 0)
    mention = cand(text, 2)
    new = cand("The staging Postgres database hostname changed to pg-stg-07 after the rebuild.", 6)
    outcome = apply([answer, mention, new], HOST)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


@pytest.mark.parametrize(
    ("question", "old", "text", "new"),
    [
        # a region is many things' value: another thing named beside it keeps it
        (
            "Which region is the analytics cluster in?",
            "The analytics cluster is in us-east-1.",
            "The Berlin folks see latency because the billing stack is all in us-east-1.",
            "The analytics cluster moved to eu-west-1.",
        ),
        # a name the old value is a word of owns another thing: the clinic stays
        (
            "Who is my GP?",
            "My GP is Dr. Alvarez at Northside Clinic.",
            "Northside Clinic's pharmacy closes at 6 on weekdays.",
            "New GP is Dr. Okafor, same clinic.",
        ),
    ],
)
def test_identifiers_and_opening_names_keep_their_guards(
    question: str, old: str, text: str, new: str
) -> None:
    answer = cand(old, 0)
    near = cand(text, 2)
    outcome = apply([answer, near, cand(new, 6)], question)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]


def test_an_old_value_that_stays_on_for_another_role_is_kept() -> None:
    question = "Who coaches the Sunday under-12s?"
    answer = cand("The under-12s coach is Coach Marsh, Sundays at 10 on the back pitch.", 0)
    stays = cand("Coach Marsh is staying on as the club's kit manager.", 2)
    new = cand("Club email: Coach Adeyemi takes over the under-12s after Easter.", 6)
    outcome = apply([answer, stays, new], question)
    assert stays.id in {c.id for c in outcome.kept}
    (kept,) = [c for c in outcome.kept if c.id == stays.id]
    assert kept.stale_sentences == ()


def test_i_report_to_says_who_my_manager_is() -> None:
    question = "Who is my manager?"
    answer = cand("My manager is Ines Moreau, she's great about remote days.", 0)
    mention = cand("Ines Moreau signed off on my training budget.", 2)
    new = cand("Reorg news: I report to Tobias Lind now, same team.", 6)
    outcome = apply([answer, mention, new], question)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}
    # someone else's reporting line is no news of mine
    other = cand("My partner Sam reports to Tobias Lind now.", 6)
    assert apply([answer, mention, other], question).dropped == []


def test_an_old_name_opening_a_sentence_is_mentioned() -> None:
    answer = cand("Mochi's vet clinic is Greenleaf, on the high street.", 0)
    mention = cand("Greenleaf called to confirm, they want a stool sample too.", 2)
    new = cand("Mochi's vet clinic changed to Pawsitive Care after the move.", 6)
    outcome = apply([answer, mention, new], "Which vet clinic does Mochi go to?")
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


def test_a_mention_after_the_announcement_is_no_mention() -> None:
    answer = cand("Ilse lives in Leipzig, near the zoo.", 0)
    new = cand("Ilse is in Dresden now, the new job started in May.", 6)
    later = cand("Ilse misses Leipzig already.", 9)
    outcome = apply([answer, new, later], CITY)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]


def test_a_pronoun_right_after_the_subject_announces_for_it() -> None:
    question = "What's the guest wifi password?"
    old = cand("The guest wifi password is maple42.", 0)
    new = cand("Changed the guest wifi password after the party. It's birch77 now.", 5)
    outcome = apply([old, new], question)
    assert [d.chunk.id for d in outcome.dropped] == [old.id]
    # the sentence before names something else: the pronoun is not the question's subject
    other = cand("Changed the router admin login after the party. It's birch77 now.", 5)
    assert apply([old, other], question).dropped == []


def test_a_short_form_names_the_question_word() -> None:
    physio = question_frame("Where does Grandma go for physiotherapy?")
    assert physio is not None
    assert answers(physio, "Grandma's physio sessions are at Riverside Clinic, Tuesdays at 10.")
    limit = question_frame("What is the per-key rate limit on the public API?")
    assert limit is not None
    assert answers(limit, "Public API rate limit is 600 requests per minute per key.")
    upload = question_frame("What is the upload limit on the support portal?")
    assert upload is not None
    assert answers(upload, "The support portal caps uploads at 25 MB per file.")


def test_a_number_answers_another_type_word_only_beside_one_of_its_words() -> None:
    version = question_frame("What Postgres version is production on?")
    assert version is not None
    assert answers(version, "We pin Postgres at 14.9 in prod, don't upgrade without sign-off.")
    assert not answers(version, "Prod DB has two read replicas in eu-west-1.")
    standup = question_frame("What time is the daily standup?")
    assert standup is not None
    assert answers(standup, "Daily standup is 9:30 sharp, cameras optional.")


ISLAND = (
    "Dunlaggan Island is an uninhabited island in the Sound of Jura, off the west coast of "
    "Scotland. It covers about 51 hectares. It was farmed until 1923, when its last residents "
    "left for the mainland. It is now a nature reserve noted for its grey seals."
)


def test_an_article_of_the_same_shape_about_another_thing_is_no_revision() -> None:
    frame = question_frame("When did the last residents of Dunlaggan Island leave?")
    assert frame is not None
    other = (
        "Inchmorrow is an uninhabited island in the Firth of Lorn, off the west coast of "
        "Scotland. It covers about 84 hectares. It was farmed until 1948, when its last "
        "residents left for the mainland. It is now a nature reserve noted for its terns."
    )
    assert revision(frame, ISLAND, other) is None
    revised = revision(frame, ISLAND, ISLAND.replace("1923", "1931"))
    assert revised is not None and revised.change.new_values == ("1931",)


def test_times_of_day_are_values_only_where_the_question_asks_when() -> None:
    assert [(v.kind, v.key) for v in values("I run in the mornings.")] == [("daypart", "morning")]
    when = question_frame("When do I usually go running?")
    which = question_frame("Which gym do I go to in the morning?")
    time = question_frame("What time does Oliver go to bed?")
    assert when is not None and which is not None and time is not None
    assert "daypart" in when.kinds and "daypart" in time.kinds
    assert which.kinds == {"name"}
    assert when.verb == "run" and "usually" not in when.words


def test_a_hyphenated_name_says_its_words() -> None:
    frame = question_frame("What port does the billing API listen on?")
    assert frame is not None
    assert answers(frame, "billing-api listens on 8443 in the dev cluster.")
    assert not answers(frame, "ledger-api listens on 8443 in the dev cluster.")


def test_a_name_with_accents_is_one_word() -> None:
    frame = question_frame("Which city does Tom live in?")
    assert frame is not None
    # "Tomás" is not "Tom" and an "s"
    assert not answers(frame, "Tomás lives in Valparaíso.")
    assert answers(frame, "Tom lives in Valparaíso.")
    assert [v.key for v in values("We met Zoë in Málaga.")] == ["zoë", "málaga"]


ROTATION = (
    "Certificate rotation (runbook 4.2): Internal TLS certificates issued by our private CA "
    "are rotated every 90 days. The rotation job runs from the ops-tools cluster and opens a "
    "ticket in the SEC queue when it finishes. Never extend an expiring cert by hand."
)
ROTATION_REISSUED = (
    "Certificate rotation (runbook 4.2, revised): Internal TLS certificates from the private "
    "CA are now rotated every 60 days. The rotation job still runs from the ops-tools cluster "
    "and files a ticket in the SEC queue on completion. Do not extend an expiring certificate "
    "manually under any circumstances."
)
ROTATED = "How often are the internal TLS certificates rotated?"


def test_a_reissued_document_supersedes_only_the_statement_it_changed() -> None:
    frame = question_frame(ROTATED)
    assert frame is not None
    # the last statement is reworded past recognition: no whole revision
    assert revision(frame, ROTATION, ROTATION_REISSUED) is None
    found = revision(frame, ROTATION, ROTATION_REISSUED, whole=False)
    assert found is not None and found.index == 0
    assert (found.change.old_values, found.change.new_values) == (("90",), ("60",))
    old = cand(ROTATION, 0)
    new = cand(ROTATION_REISSUED, 15)
    outcome = apply([old, new], ROTATED)
    assert outcome.dropped == []
    kept_old = next(c for c in outcome.kept if c.id == old.id)
    assert [s.index for s in kept_old.stale_sentences] == [0]
    assert "every 90 days" not in kept_old.visible_text
    assert "ops-tools cluster" in kept_old.visible_text


def test_a_reissue_needs_its_opening_and_half_its_statements() -> None:
    frame = question_frame(ROTATED)
    assert frame is not None
    # another opening: two documents that share some sentences
    other = "Ops notes. " + ROTATION_REISSUED
    assert revision(frame, ROTATION, other, whole=False) is None
    # one statement of three kept: a rewrite, not a re-issue
    rewrite = (
        "Certificate rotation (runbook 4.2, revised): Internal TLS certificates from the "
        "private CA are now rotated every 60 days. Tickets are filed by the job itself. "
        "Manual extensions are forbidden."
    )
    three = ROTATION + " Expired certs page the on-call engineer."
    assert revision(frame, three, rewrite, whole=False) is None


def test_two_messages_under_one_label_are_no_reissue() -> None:
    frame = question_frame("Which book is Declan's pick for the autumn shortlist?")
    assert frame is not None
    older = (
        "Book club shortlist for autumn: Tomorrow, and Tomorrow, and Tomorrow. Gabrielle's pick."
    )
    newer = "Book club shortlist for autumn: Demon Copperhead, nominated by Ruth."
    assert revision(frame, older, newer, whole=False) is None
    # control: a statement said again past its label, one value changed, is re-issued
    frame = question_frame("How much goes into the ISA each month?")
    assert frame is not None
    older = "Checked the app: £400 a month goes into the ISA by standing order. All fine."
    newer = "With the pay rise, £550 a month goes into the ISA by standing order."
    found = revision(frame, older, newer, whole=False)
    assert found is not None and found.change.new_values == ("550",)


@pytest.mark.parametrize(
    "question",
    [
        "What dose of metformin does Dad take?",
        "At what disk usage does the cleanup job kick in?",
        "What are the Eastside library's weekday hours?",
        "What is the daily meal per diem for domestic travel?",
        # a bound before the question word ("after how long") asks "how long"
        "After how long should the secondary on-call be paged?",
    ],
)
def test_a_dose_a_usage_and_hours_are_numbers(question: str) -> None:
    frame = question_frame(question)
    assert frame is not None and frame.kinds == {"number"}


def test_a_type_word_with_its_owner_is_a_frame() -> None:
    frame = question_frame("Which Vercel plan are we on?")
    assert frame is not None
    assert frame.subject == {word_stem("vercel")} and frame.head == {word_stem("plan")}


def test_ordinals_and_month_abbreviations_have_their_own_kinds() -> None:
    kinds = {v.text: v.kind for v in values("Dates are Oct 14-17, invoices due on the 3rd.")}
    assert kinds["Oct"] == "month" and kinds["3rd"] == "ordinal"
    when = question_frame("When is the tax return due?")
    assert when is not None and "ordinal" in when.kinds
    amount = question_frame("How much is the rent?")
    assert amount is not None and "ordinal" not in amount.kinds


VET = "Which vet does Biscuit go to?"


@pytest.mark.parametrize(
    "text",
    [
        "Maple Grove called, the bloodwork is normal.",  # the old value opens the sentence
        "Dropping Biscuit at Maple Grove for his booster on Thursday.",  # half its words
    ],
)
def test_stage_excises_mentions_of_part_of_a_long_old_value(text: str) -> None:
    answer = cand("Biscuit's vet is Maple Grove Animal Hospital, Dr. Kim.", 0)
    mention = cand(text, 2)
    new = cand("We switched Biscuit over to Riverside Vet, five minutes from home.", 6)
    outcome = apply([answer, mention, new], VET)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


def test_stage_excises_a_mention_of_the_proper_part_of_a_place_s_name() -> None:
    # "Harbor" of "Harbor Animal Clinic": the rest of the name is its kind
    answer = cand("Miso's vet is Harbor Animal Clinic on 5th, they have her vaccine history.", 0)
    mention = cand("Dropped Miso off at Harbor for her teeth cleaning, pick up at 4.", 2)
    new = cand("We've switched Miso to Dr. Ruiz at Greenway Vets, it's a five minute walk.", 6)
    outcome = apply([answer, mention, new], "Which vet does Miso go to?")
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


def test_stage_leaves_a_mention_of_one_generic_word_of_the_old_value() -> None:
    answer = cand("Biscuit's vet is Maple Grove Animal Hospital, Dr. Kim.", 0)
    other = cand("The Hospital parking lot was full again.", 2)
    new = cand("We switched Biscuit over to Riverside Vet, five minutes from home.", 6)
    outcome = apply([answer, other, new], VET)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]


MEALS = (
    "Travel meals: employees traveling for work may expense meals up to $60 per day, tips "
    "included. Alcohol is not reimbursable unless you are hosting a client. Submit expenses "
    "in Expensify within 30 days of your return."
)
MEALS_REVISED = (
    "Travel meals: employees traveling for work may expense meals up to $75 per day, tips "
    "included. Alcohol isn't reimbursable unless you're hosting a client. File expenses in "
    "Expensify within 30 days of returning."
)


def test_a_revision_needs_only_half_the_question_named() -> None:
    # "daily" and "cap" are the question's words; the policy says "per day" and "up to"
    frame = question_frame("What's the daily meal cap when traveling for work?")
    assert frame is not None
    found = revision(frame, MEALS, MEALS_REVISED)
    assert found is not None and found.index == 0
    assert (found.change.old_values, found.change.new_values) == (("60",), ("75",))
    # a paragraph that names too little of the question is not read as its answer
    other = question_frame("What's the daily parking cap for contractors at the airport?")
    assert other is not None
    assert revision(other, MEALS, MEALS_REVISED) is None


# --- stop 41: old values inside tokens and commands, owners in another clause ---

PORT = "Which port does metrics-exporter listen on?"


@pytest.mark.parametrize(
    "text",
    [
        "quick check: curl -s localhost:9100/metrics | grep http_requests_total",  # in a URL
        "psql -h metrics.internal -p 9100 -U analyst reporting",  # "-U" is a flag, no name
    ],
)
def test_stage_excises_an_old_value_said_inside_a_token_or_a_command(text: str) -> None:
    answer = cand("metrics-exporter listens on port 9100.", 0)
    mention = cand(text, 2)
    new = cand("metrics-exporter was moved to 9187 to stop clashing with node_exporter.", 6)
    outcome = apply([answer, mention, new], PORT)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


@pytest.mark.parametrize(
    ("question", "old", "text", "new"),
    [
        # a patch release of the old version, and the bucket without its scheme
        (
            "What Kubernetes version are our clusters on?",
            "All our clusters are on Kubernetes 1.27 right now.",
            "kubectl on prod-eu reports server v1.27.9",
            "All clusters got upgraded to 1.29 over the weekend.",
        ),
        (
            "Which S3 bucket holds the production logs?",
            "Production logs land in s3://acme-logs-prod every night.",
            "Athena table prod_logs points at acme-logs-prod.",
            "Production logs go to acme-observability-archive now.",
        ),
    ],
)
def test_stage_excises_an_old_identifier_in_another_spelling(
    question: str, old: str, text: str, new: str
) -> None:
    answer, mention, newer = cand(old, 0), cand(text, 2), cand(new, 6)
    outcome = apply([answer, mention, newer], question)
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}


@pytest.mark.parametrize(
    ("old", "text"),
    [
        ("All our clusters are on Kubernetes 1.27 right now.", "Node 10.1.27.3 went down."),
        ("All our clusters are on Kubernetes 1.27 right now.", "Upgraded the CLI to 1.275."),
        ("metrics-exporter listens on port 9100.", "Ticket 91003 is about the login page."),
        ("metrics-exporter listens on port 9100.", "Copied the logs to /srv/x9100/tmp."),
    ],
)
def test_a_token_that_only_contains_the_old_digits_is_no_mention(old: str, text: str) -> None:
    question = "What Kubernetes version are our clusters on?" if "1.27" in old else PORT
    new = (
        "All clusters got upgraded to 1.29 over the weekend."
        if "1.27" in old
        else "metrics-exporter was moved to 9187 to stop clashing with node_exporter."
    )
    answer, near, newer = cand(old, 0), cand(text, 2), cand(new, 6)
    outcome = apply([answer, near, newer], question)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]
    (kept_near,) = [c for c in outcome.kept if c.id == near.id]
    assert kept_near.stale_sentences == ()


def test_the_subject_owning_a_thing_in_another_clause_leaves_a_mention() -> None:
    # "Amara's cooking" is its own clause; the visit to Leeds takes her old city for granted
    answer = cand("My sister Amara lives in Leeds, near the university.", 0)
    mention = cand("We're visiting Leeds over Easter, Amara's cooking jollof.", 2)
    new = cand("Amara relocated to Glasgow for the new hospital job.", 6)
    outcome = apply([answer, mention, new], "Which city does Amara live in?")
    assert {d.chunk.id for d in outcome.dropped} == {answer.id, mention.id}
    # where the old value is said of the subject's thing, it is that thing's
    near = cand("We're visiting over Easter, Amara's partner lives in Leeds.", 2)
    outcome = apply([answer, near, new], "Which city does Amara live in?")
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]


def test_a_compound_with_the_questions_verb_is_no_answer() -> None:
    # "work-life" is a compound of common words, one of them the verb asked: no employer
    question = "Where does Priyanka work?"
    answer = cand("Priyanka works at Deloitte, audit team.", 0)
    trap = cand("Priyanka says work-life balance is her big resolution this year.", 2)
    new = cand("Priyanka quit! She's joined Fernleaf as head of finance.", 6)
    outcome = apply([answer, trap, new], question)
    assert [d.chunk.id for d in outcome.dropped] == [answer.id]
    (kept_trap,) = [c for c in outcome.kept if c.id == trap.id]
    assert kept_trap.stale_sentences == ()


# --- stop 42: an old answer only ever said in passing, values beside the subject ---

PAGING = "Which tool do we use for on-call paging?"


def _dropped(outcome: FilterOutcome) -> set[str]:
    return {d.chunk.id for d in outcome.dropped}


def test_an_announcement_replaces_the_value_older_mentions_repeat() -> None:
    # no older statement answers in the question's words; the one value of the new value's
    # kind that two older statements repeat is the old answer, and both mentions go
    first = cand("Install the Pagerly app for on-call pages before your first shift.", 0)
    second = cand("INC-88 postmortem: the Pagerly alert was acked but nobody joined.", 2)
    still = cand("On-call rotations are one week, handoff on Mondays at 10.", 3)
    new = cand("We migrated on-call paging to Beacon, schedules were imported.", 6)
    outcome = apply([first, second, still, new], PAGING)
    assert _dropped(outcome) == {first.id, second.id}
    decision = outcome.dropped[0]
    assert "Pagerly -> Beacon" in decision.reason
    assert {c.id for c in outcome.kept} == {still.id, new.id}


@pytest.mark.parametrize(
    ("question", "olds", "new"),
    [
        # a second value of the kind repeated too: which one the announcement replaces is
        # not known (the status page tool beside the paging tool)
        (
            PAGING,
            [
                "Install the Pagerly app before your first shift.",
                "Outage notices go through Statusbird, never #general.",
                "INC-88: the Pagerly alert was acked but nobody joined.",
                "Drafted a Statusbird incident for the card blip.",
            ],
            "We migrated on-call paging to Beacon, schedules were imported.",
        ),
        # the announcement is about a parallel subject: another qualifier ...
        (
            "What is the production database host?",
            [
                "psql -h db-prod-1.internal -U app orders",
                "db-prod-1.internal replication lag alarm cleared itself at 02:10",
            ],
            "Staging database host moved to db-stg-3 after the rebuild.",
        ),
        # ... another owner
        (
            "Who is my dentist?",
            [
                "Dropped the insurance forms off with Dr. Okafor on the way to work.",
                "Dr. Okafor says I need a crown on the lower left molar.",
            ],
            "My sister's dentist is now Dr. Hale, she loves him.",
        ),
        # a who-question is answered by a person, never by a path or a code
        (
            "Who covers weekend nights on the billing pager rota?",
            [
                "Rahul Mehta is on the pager rota for the billing cluster.",
                "pinged Rahul about the queue alert on billing-2, he acked within 5 min",
            ],
            "runbook for billing retries moved to the wiki under /ops/billing",
        ),
        # the question's verb is not said: where Lena lives, not where she works
        (
            "Where does my sister Lena work?",
            [
                "Lena got the promotion at Halvorsen Architects!",
                "Met Lena outside Halvorsen Architects for coffee.",
            ],
            "Lena moved to a flat on Quay Street, new address is in my contacts.",
        ),
    ],
)
def test_a_recurring_value_with_any_doubt_decides_nothing(
    question: str, olds: list[str], new: str
) -> None:
    chunks = [cand(text, i) for i, text in enumerate(olds)] + [cand(new, 10)]
    outcome = apply(chunks, question)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)


def test_a_manager_change_after_a_phrase_excises_the_old_managers_mentions() -> None:
    # "After the reorg Mira reports to ...": a common word before the name qualifies no one;
    # "Mira's grumbling that ..." is "Mira is"; "Dov's approval" names the old manager in the
    # role a who-question asks about
    first = cand("Mira's grumbling that Dov keeps moving her review dates.", 0)
    second = cand("Mira has to get Dov's approval before she books the Porto trip.", 2)
    third = cand("Mira's design review went well, the team loved the prototype.", 3)
    new = cand("After the reorg Mira reports to Anneke now, and she seems happier.", 6)
    outcome = apply([first, second, third, new], "Who does Mira report to?")
    assert {d.chunk.id for d in outcome.dropped} == {first.id, second.id}
    assert {c.id for c in outcome.kept} == {third.id, new.id}
    assert all(c.stale_sentences == () for c in outcome.kept)
    # the same statements about someone's office are no mention: the question is no who
    where = apply(
        [second, cand("After the reorg Mira sits on floor 4 now.", 6)], "Where does Mira sit?"
    )
    assert where.dropped == []


def test_a_question_about_what_was_added_asks_about_one_member() -> None:
    # "Which IP was added ...?": one member of several; no announced value replaces it
    old = cand('bastion SG ingress:\ncidr_blocks = ["203.0.113.7/32"]', 0)
    grown = cand('cidr_blocks = ["203.0.113.7/32", "198.51.100.9/32"]  # Noor\'s home IP', 3)
    new = cand("Noor says SSH to the bastion works from home now", 6)
    question = "Which IP was added to the bastion security group for Noor's home?"
    assert apply([old, grown, new], question).dropped == []


def test_a_recurring_name_never_said_with_the_question_is_no_old_answer() -> None:
    # a colleague named twice is the only repeated name, but nothing ties her to paging
    first = cand("Lunch with Priya at the noodle place, she recommends the laksa.", 0)
    second = cand("Priya says hi to everyone from the Lisbon offsite.", 2)
    new = cand("We migrated on-call paging to Beacon, schedules were imported.", 6)
    outcome = apply([first, second, new], PAGING)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)


def test_a_recurring_value_said_after_the_announcement_is_no_old_answer() -> None:
    # the asked subject's value said again after a change: it stays (no statement answers in
    # the question's words, "Standup is in Fjord" would)
    first = cand("Standup in Fjord again, bring your laptop.", 0)
    second = cand("Fjord was double-booked, so standup ran late.", 2)
    new = cand("We moved standup to the Atlas room from now on.", 6)
    later = cand("Fjord still has the good screen for demos.", 8)
    outcome = apply([first, second, new, later], "Which room is standup in?")
    assert outcome.dropped == []


@pytest.mark.parametrize(
    ("question", "old", "mention", "new"),
    [
        (
            "What dose of lisinopril does Mum take?",
            "Mum takes 10 mg of lisinopril each morning.",
            "Picked up the lisinopril 10 mg refill from the pharmacy.",
            "The GP doubled Mum's lisinopril, she's on 20 mg now.",
        ),
        (
            "What day is Leo's soccer practice?",
            "Leo's soccer practice is on Wednesdays.",
            "Carpool note: Wednesday practice, I drive, Jen brings them home.",
            "Leo's soccer practice got moved to Tuesdays.",
        ),
    ],
)
def test_an_old_value_beside_the_subjects_word_is_a_mention(
    question: str, old: str, mention: str, new: str
) -> None:
    answer, near, newer = cand(old, 0), cand(mention, 2), cand(new, 6)
    outcome = apply([answer, near, newer], question)
    assert _dropped(outcome) == {answer.id, near.id}


def test_an_old_value_beside_another_word_is_no_mention() -> None:
    # a weekday recurs in any diary: beside the class it is the class's day, beside dinner
    # it is not
    question = "What day is my Japanese class?"
    answer = cand("My Japanese class is on Tuesdays.", 0)
    beside = cand("Skipped Tuesday class with the flu, need to catch up on chapter 6.", 2)
    other = cand("Tuesday dinner with Sam at the ramen place, booked for 7.", 3)
    newer = cand("My Japanese class got rescheduled to Thursdays.", 6)
    outcome = apply([answer, beside, other, newer], question)
    assert _dropped(outcome) == {answer.id, beside.id}


def test_a_word_of_a_name_the_question_says_is_no_recurring_value() -> None:
    # "City" of "New York City", twice before an announcement, is part of the subject's name
    question = "Which park was home to the New York Yankees?"
    first = cand("In 1903 the franchise moved to New York City and took the name Highlanders.", 0)
    second = cand("They are one of two major league clubs based in New York City.", 2)
    new = cand("In 2009 the New York Yankees moved into a ballpark beside Macombs Dam.", 6)
    outcome = apply([first, second, new], question)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)


WELCOMED = "Who on the data platform team came over from the payments squad?"


def _welcomes() -> tuple[ScoredChunk, ScoredChunk]:
    first = cand(
        "Welcome Tomasz to the data platform team! He's coming over from the payments squad.", 0
    )
    return first, cand("Welcome Rhys to the data platform team, our first grad hire this year.", 6)


def test_a_reissued_welcome_adds_a_member() -> None:
    # "Welcome _ to the team" is a multi-valued frame: a second welcome is one more member
    first, second = _welcomes()
    outcome = apply([first, second], WELCOMED)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)


def test_the_reissue_rule_reads_the_deployments_policies() -> None:
    # with the built-in multi-valued table turned off, a second welcome is a re-issue again
    question = WELCOMED
    first, second = _welcomes()
    stage = AnnouncedChangeFilter(PolicyTable(known_multi_valued=False))
    outcome = stage.apply([first, second], ctx(question))
    (kept,) = [c for c in outcome.kept if c.id == first.id]
    assert [s.text for s in kept.stale_sentences] == ["Welcome Tomasz to the data platform team!"]


@pytest.mark.parametrize(
    "text", ["", " ", "?", ":", "\x00\x01 now", "Moved\u200b to X", "`* * * * *`", "x " * 2500]
)
def test_odd_text_in_the_recurring_rule_decides_nothing_and_raises_nothing(text: str) -> None:
    # odd statements beside an announcement whose old value nothing repeats
    new = cand("We migrated on-call paging to Beacon, schedules were imported.", 6)
    outcome = apply([cand(text, 0), cand(text + " ", 2), new], PAGING)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)
    question_frame_of_odd = apply([cand("Pagerly alert.", 0), new], text or "?")
    assert question_frame_of_odd.dropped == []


CRM_TURNS = (
    ("t1", "The CRM's main Postgres database is called salesdb.", 0),
    ("t2", "Run migrations with DATABASE=salesdb bin/rails db:migrate.", 1),
    ("t3", "We renamed the CRM's main Postgres database to crm_core.", 3),
)
CRM_QUESTION = "What is the CRM's main Postgres database called?"
MIGRATIONS = CRM_TURNS[1][1]


@pytest.mark.parametrize(
    "filters, question, excised",
    [
        # the ledger closed salesdb under the asked key: its mention in a command goes too
        (["supersession", "announced"], CRM_QUESTION, True),
        # another question: the ledger's change is not what it asks about
        (["supersession", "announced"], "Which web framework does the CRM use?", False),
        # no supersession stage, no ledger records: the stage reads the rename itself (a word
        # right after "called" is a name however it is written)
        (["announced"], CRM_QUESTION, True),
    ],
)
def test_stage_excises_mentions_of_a_value_the_ledger_superseded(
    tmp_path: Path,
    hashing_embedder: HashingEmbedder,
    filters: list[str],
    question: str,
    excised: bool,
) -> None:
    settings = make_settings(tmp_path, filters=filters, stm_size=0)
    with Memory(settings, embedder=hashing_embedder) as mem:
        mem.ingest(
            Turn(id=tid, namespace="crm", text=text, ts=T0 + timedelta(days=d))
            for tid, text, d in CRM_TURNS
        )
        result = mem.retrieve(question, namespace="crm", k=10)
    gone = {d.chunk.chunk.text: d for d in result.dropped}
    kept = {c.chunk.text for c in result.kept}
    assert (MIGRATIONS in gone) is excised and (MIGRATIONS in kept) is not excised
    if excised:
        (stale,) = gone[MIGRATIONS].chunk.stale_sentences
        assert gone[MIGRATIONS].stage == STAGE
        assert (stale.value, stale.current_value) == ("salesdb", "crm_core")
        assert stale.superseded_by_turn_id == "t3"
    assert CRM_TURNS[2][1] in kept  # the current statement is never touched


HOST_TURNS = (
    ("t1", "The reporting Postgres host is pgrep-east-04.internal, replicas hang off it.", 0),
    ("t2", "INC-231: connection spikes on pgrep-east-04 during the nightly export", 1),
    ("t3", "The reporting Postgres host is pgrep-west-02.internal after the migration.", 4),
)


def test_a_host_the_ledger_superseded_is_mentioned_without_its_domain(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    settings = make_settings(tmp_path, filters=["supersession", "announced"], stm_size=0)
    with Memory(settings, embedder=hashing_embedder) as mem:
        mem.ingest(
            Turn(id=tid, namespace="db", text=text, ts=T0 + timedelta(days=d))
            for tid, text, d in HOST_TURNS
        )
        result = mem.retrieve("What is the reporting Postgres host?", namespace="db", k=10)
    gone = {d.chunk.chunk.turn_id: d for d in result.dropped}
    assert "t2" in gone and gone["t2"].stage == STAGE
    assert "t3" in {c.chunk.turn_id for c in result.kept}


NETBSD = (
    "src/unix/bsd/netbsdlike/netbsd/mod.rs:\npub const PT_GET_SIGINFO: c_int = 20;\n"
    "pub const PT_RESUME: c_int = 21;\npub const PT_SUSPEND: c_int = 22;\n"
    "pub const PT_STOP: c_int = 23;\npub const PT_LWPSTATUS: c_int = 24;"
)


def test_lines_of_one_shape_are_no_revision_of_other_lines() -> None:
    # constant declarations share most of their words, in another file or under other names
    frame = question_frame("What is c_int in src/unix/bsd/netbsdlike/netbsd/mod.rs?")
    assert frame is not None
    wasi = (
        "src/wasi/p2.rs:\npub const IPV6_JOIN_GROUP: c_int = 20;\n"
        "pub const IPV6_LEAVE_GROUP: c_int = 21;\npub const IPV6_V6ONLY: c_int = 26;"
    )
    flags = (
        "src/unix/bsd/netbsdlike/netbsd/mod.rs:\n"
        "pub const IFF_BROADCAST: c_int = 0x0002; // broadcast address valid\n"
        "pub const IFF_DEBUG: c_int = 0x0004; // turn on debugging\n"
        "pub const IFF_LOOPBACK: c_int = 0x0008; // is a loopback net"
    )
    assert revision(frame, wasi, NETBSD) is None
    assert revision(frame, flags, NETBSD) is None


def test_a_version_the_new_value_refines_is_no_mention_of_the_old() -> None:
    # reqwest's log = "0.4" -> "0.4.6": async-compression's "0.4.0" is of both
    frame = question_frame("What is log in Cargo.toml?")
    change = AnswerChange.of_objects("0.4", "0.4.6")
    assert frame is not None
    other = 'async-compression = { version = "0.4.0", default-features = false }'
    assert not mentions_old_value(frame, change, other)
    assert mentions_old_value(frame, change, 'log = "0.4"')


# The question's subject under another of its names: "my sister Ana" in any candidate makes a
# question about "my sister" one about Ana, and one about Ana one about "my sister".
NAMED_ELSEWHERE = [
    (
        "Where does my sister live?",
        "My sister Ana lives in Porto.",
        "Ana moved to Lisbon.",
        [],
    ),
    (
        "Which office does Hendrik work from?",
        "Hendrik works out of the Rotterdam office.",
        "My boss is based at the Utrecht office now.",
        ["My boss Hendrik Vos is a stickler for Monday stand-ups."],
    ),
    (
        "Which gym does my brother go to?",
        "Dmitri goes to Iron Temple Gym.",
        "My brother joined Pulse Fitness near his office.",
        ["My brother Dmitri finally ran a sub-25 5k."],
    ),
]
# ... never the same relation of another person, nor a thing that person owns
NAMED_APART = [
    (
        "Which school does my son go to?",
        "My son Leo goes to Oakwood Primary. My daughter Mia goes to Hillcrest.",
        "Mia switched to Riverside Academy.",
    ),
    (
        "What does my dog eat?",
        "My dog Rufus eats Acana kibble.",
        "Rufus's brother now eats Orijen.",
    ),
    (
        "Where does my sister live?",
        "My sister Ana lives in Porto.",
        "Bea moved to Lisbon.",
    ),
]


@pytest.mark.parametrize(("question", "older", "newer", "others"), NAMED_ELSEWHERE)
def test_a_subject_named_another_way_announces(
    question: str, older: str, newer: str, others: list[str]
) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert announcement(frame, older, newer) is None  # no name in common without the others
    named = with_names(frame, [older, newer, *others])
    found = announcement(named, older, newer)
    assert found is not None and set(found.old_values).isdisjoint(found.new_values)


@pytest.mark.parametrize(("question", "older", "newer"), NAMED_APART)
def test_another_person_named_stays_apart(question: str, older: str, newer: str) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert announcement(with_names(frame, [older, newer]), older, newer) is None


def test_the_stage_reads_names_from_every_candidate() -> None:
    alias = cand("My boss Hendrik Vos is a stickler for Monday stand-ups.", 0)
    old = cand("Hendrik works out of the Rotterdam office.", 1)
    new = cand("My boss is based at the Utrecht office now.", 5)
    outcome = apply([alias, old, new], "Which office does Hendrik work from?")
    assert [d.chunk.id for d in outcome.dropped] == [old.id]
    assert alias.id in {c.id for c in outcome.kept}


@pytest.mark.parametrize(
    ("older", "newer", "new"),
    [
        ("Tom works at Acme as a designer.", "Tom left Acme and joined Globex.", "Globex"),
        ("Tom works at Acme.", "Tom left Acme for Globex.", "Globex"),
    ],
)
def test_the_value_given_up_is_the_old_answer(older: str, newer: str, new: str) -> None:
    frame = question_frame("Where does Tom work?")
    assert frame is not None
    found = announcement(frame, older, newer)
    assert found is not None and found.old_values == ("Acme",) and found.new_values == (new,)


def test_a_cancelled_value_is_the_old_answer() -> None:
    gym = question_frame("Which gym do I go to?")
    assert gym is not None
    older = "My gym membership is at Equinox."
    found = announcement(gym, older, "Cancelled Equinox, I go to the YMCA now.")
    assert found is not None and found.old_values == ("Equinox",)
    assert announcement(gym, older, "I go to Equinox and the YMCA now.") is None


@pytest.mark.parametrize(
    "newer", ["Tom left Acme and is job hunting.", "Tom left the Acme party early."]
)
def test_leaving_names_no_new_answer(newer: str) -> None:
    frame = question_frame("Where does Tom work?")
    assert frame is not None
    assert announcement(frame, "Tom works at Acme.", newer) is None


def test_a_question_whose_only_word_is_its_verb() -> None:
    # the user's own verb: the user is the subject
    work = question_frame("Where do I work?")
    assert work is not None and work.subject == {"user"} and work.verb == "work"
    found = announcement(work, "I work at Stripe.", "I started at Shopify last month.")
    assert found is not None and found.new_values == ("Shopify",)
    # the type word's modifier: "Postgres" of "What Postgres version ..."
    pg = question_frame("What Postgres version do we run?")
    assert pg is not None and pg.subject == {root("postgres")} and pg.head == {"version"}
    found = announcement(pg, "Our Postgres version is 14.", "We upgraded Postgres to 16.")
    assert found is not None and found.new_values == ("16",)
    # not a noun the question ends on ("When do I do my laundry?" asks about laundry)
    laundry = question_frame("When do I do my laundry?")
    assert laundry is not None and laundry.subject == {root("laundry")}


def test_a_person_is_named_with_or_without_a_title() -> None:
    frame = question_frame("What car does Mr. Delacroix drive?")
    assert frame is not None and frame.subject == {root("delacroix")}
    older = "Our neighbour Mr. Delacroix drives a silver Volvo XC60."
    found = announcement(
        frame, older, "Delacroix traded in his old motor, he's driving a Mazda now."
    )
    assert found is not None and found.new_values == ("Mazda",)


def test_an_ip_is_asked_as_a_number() -> None:
    # "What IP ...?" asks for an address, not for the file that maps it: a URL named in a
    # later "works now" is no new value of /etc/hosts
    question = "What IP does loki.lab.internal point to on the jump box?"
    frame = question_frame(question)
    assert frame is not None and frame.kinds == {"number"}
    a = cand("/etc/hosts on the jump box: 10.1.3.40   grafana.lab.internal", 0)
    b = cand("/etc/hosts on the jump box: 10.1.3.41   loki.lab.internal", 3)
    c = cand("curl http://grafana.lab.internal:3000 from the jump box works now, needed it", 4)
    outcome = apply([a, b, c], question)
    assert outcome.dropped == [] and all(k.stale_sentences == () for k in outcome.kept)


def test_a_value_shaped_like_the_asked_attribute_says_it() -> None:
    # "moved to db-stg-07.internal" says the hostname of "What's the hostname of ...?"; a
    # condition on who needs the value ("if anyone needs it") hedges nothing
    question = "What's the hostname of the staging database?"
    old = cand("Staging Postgres is on db-stg-02.internal if anyone needs it.", 0)
    used = cand("psql -h db-stg-02.internal -U app_ro staging   # read-only", 1)
    hedged = cand("Staging Postgres is on db-stg-02.internal if the failover worked.", 2)
    new = cand("Staging database moved to db-stg-07.internal after the disk failure.", 5)
    outcome = apply([old, used, hedged, new], question)
    assert _dropped(outcome) == {old.id, used.id}
    assert all("db-stg-02.internal -> db-stg-07.internal" in d.reason for d in outcome.dropped)
    # a name of no host's shape does not say it
    moved = cand("Staging database moved to Frankfurt after the disk failure.", 5)
    assert apply([old, used, moved], question).dropped == []


def test_the_clause_that_names_what_is_asked_gives_the_old_answer() -> None:
    # the replicas' host says "db" only inside its name: it is no old primary host, and a
    # later statement about it stays
    question = "What's the hostname of the primary database?"
    frame = question_frame(question)
    assert frame is not None
    older = "Primary DB host is db-primary.internal, read replicas are behind db-ro.internal."
    newer = "The primary is pg-main.prod.internal from today; the old name goes Friday."
    found = announcement(frame, older, newer)
    assert found is not None and found.old_values == ("db-primary.internal",)
    replicas = cand("db-ro.internal round-robins across three replicas.", 2)
    outcome = apply([cand(older, 0), replicas, cand(newer, 5)], question)
    assert replicas.id not in _dropped(outcome)


def test_a_fronted_phrase_belongs_to_the_clause_it_opens() -> None:
    # "During an incident, coordinate in #inc-war-room" answers the question in two clauses;
    # a reason to rename ("to match the other orgs") names no other thing
    question = "Which Slack channel do we use during incidents?"
    frame = question_frame(question)
    assert frame is not None and frame.subject == {"incident"}  # "during" is no word asked
    old = cand("During an incident, coordinate in #inc-war-room.", 0)
    said = cand("Postmortem action item: pin the status page link in #inc-war-room.", 2)
    new = cand("We renamed the incident channel to #incident-response to match the other orgs.", 5)
    outcome = apply([old, said, new], question)
    assert _dropped(outcome) == {old.id, said.id}  # said again in passing
    other = cand("We renamed the other incident channel to #incident-response.", 5)
    assert apply([old, other], question).dropped == []


def test_a_new_holder_of_the_asked_role_is_announced() -> None:
    # "Marisol leads the data team": a name opening the clause on the asked word answers a
    # who-question; "Data has a new lead: Kenji Watanabe" gives the role a new holder, where
    # "a new intern" is one more person
    question = "Who leads the data team?"
    frame = question_frame(question)
    assert frame is not None
    older = "Marisol leads the data team."
    found = announcement(frame, older, "Data has a new lead: Kenji Watanabe started Monday.")
    assert found is not None and found.old_values == ("Marisol",)
    assert "Watanabe" in found.new_values
    assert announcement(frame, older, "Data has a new intern: Kenji Watanabe started.") is None
    # a capitalised word opening a sentence on another verb is no name ("Rent goes to ...")
    landlord = question_frame("Who is my landlord?")
    assert landlord is not None
    assert not answers(landlord, "Rent goes to the landlord on the 1st.")


@pytest.mark.parametrize(
    ("question", "older", "newer", "change"),
    [
        # a provider's name said through the thing it rents out
        (
            "Where is the blog hosted?",
            "The blog is hosted on Netlify, deploys straight from the repo whenever I push.",
            "the blog now lives on a little Hetzner box I'm renting for 4 euros a month",
            ("Netlify", "Hetzner"),
        ),
        # a place a name modifies answers a where-question
        (
            "Where are Noa's swim lessons?",
            "Noa's swim lessons are at the YMCA on Saturday mornings, 9am group.",
            "Swim lessons have been moved to the Northgate aquatic center while the pool is shut.",
            ("YMCA", "Northgate"),
        ),
        # ... not an office, which is a firm's: no new employer
        (
            "Where does Leonie work?",
            "My sister Leonie is an accountant at KPMG.",
            "Leonie moved to the Frankfurt office",
            None,
        ),
        # a name after "for" is a purpose, no place
        (
            "Where does Chloe train?",
            "Chloe's training for the Great North Run, hill sprints every week.",
            "Chloe cancelled her gym membership and trains at Rockworks climbing centre now.",
            None,
        ),
        # a kin title before a name: the name alone, or the title alone, names the person
        (
            "Where does Uncle Farid live?",
            "Uncle Farid lives in Tucson, in that adobe place with the lemon tree.",
            "Farid sold the house, he's in Albuquerque now to be closer to the grandkids.",
            ("Tucson", "Albuquerque"),
        ),
        (
            "Which city does Grandpa Walt live in?",
            "Grandpa Walt lives in Tucson, about a two hour drive from us.",
            "Grandpa sold the house and he's settled in Flagstaff now, closer to Aunt June.",
            ("Tucson", "Flagstaff"),
        ),
        # another person of the same name is no answer
        (
            "Where does Uncle Farid live?",
            "Uncle Farid lives in Tucson.",
            "Grandpa Walt sold the house, he's in Albuquerque now.",
            None,
        ),
        # the CI matrix is CI's own configuration, so CI
        (
            "Which Python version does CI use?",
            "CI runs everything on Python 3.9 right now.",
            "The CI matrix moved to Python 3.11 this morning, old image is retired.",
            ("3.9", "3.11"),
        ),
    ],
)
def test_where_and_what_a_name_says(
    question: str, older: str, newer: str, change: tuple[str, str] | None
) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert_change(announcement(frame, older, newer), change)


def test_a_product_named_after_through_answers_what_service() -> None:
    # "What service ...?": a name after "through" or "via" is a service used; a name said
    # otherwise ("Mailchimp sent an invoice") is no answer
    frame = question_frame("What service does the choir newsletter use?")
    assert frame is not None
    older = "The choir newsletter goes out through Mailchimp every second Sunday."
    newer = "Marguerite switched the newsletter over to Buttondown since the free tier got cut."
    assert answers(frame, older)
    found = announcement(frame, older, newer)
    assert found is not None and found.new_values == ("Buttondown",)
    assert not answers(frame, "The choir newsletter was late, Mailchimp sent an invoice.")


def test_an_instruction_that_relies_on_the_old_value_mentions_it() -> None:
    # "Don't book anything Saturday morning" negates the booking, not the Saturday lessons
    frame = question_frame("When are Maya's swim lessons?")
    assert frame is not None
    change = AnswerChange.of_objects("Saturday", "Sunday")
    said = "Don't book anything Saturday morning, Maya has swim."
    assert mentions_old_value(frame, change, said)
    assert not mentions_old_value(frame, change, "Maya doesn't have swim lessons on Saturday.")


@pytest.mark.parametrize(
    ("newer", "change"),
    [
        # the team said by its type word, in lower case, old and new
        ("Jun got moved to the growth team as part of the reorg.", ("payments", "growth")),
        ("Jun moved over to the Platform team last week.", ("payments", "Platform")),
        # a name that is no team replaces nothing ("mentoring Keisha")
        ("Jun just started mentoring Keisha from the new-grad cohort.", None),
        # "the same team" names no team
        ("Jun moved desks, he's now on the same team as Keisha.", None),
    ],
)
def test_a_value_said_in_lower_case_before_the_type_word(
    newer: str, change: tuple[str, str] | None
) -> None:
    frame = question_frame("Which team is Jun on?")
    assert frame is not None
    older = "Jun sits on the payments team, he's your go-to for anything Stripe related."
    assert answers(frame, older)
    assert_change(announcement(frame, older, newer), change)


def test_what_a_thing_runs_on_stands_for_it() -> None:
    # the CI image's Node version is CI's; a health check of the service is another thing
    frame = question_frame("Which Node version does CI use?")
    assert frame is not None
    older = "CI runners build everything on Node 16 right now."
    found = announcement(frame, older, "Bumped the CI image to Node 20 this morning.")
    assert found is not None and found.new_values == ("20",)
    assert announcement(frame, older, "Bumped the CI cache to Node 20 keys this morning.") is None


@pytest.mark.parametrize(
    ("query", "older", "newer", "new"),
    [
        (
            "What time is the data team standup?",
            "Data team standup is 9:30 sharp, cameras optional.",
            "ours moved to 10:15 btw, the Lisbon folks couldn't make the early slot",
            "10:15",
        ),
        (
            "Where does our team's retro board live?",
            "Our team's retro board lives in Miro, link is in the channel topic.",
            "Ours moved to FigJam last sprint since design already pays for seats there.",
            "FigJam",
        ),
    ],
)
def test_a_possessive_standing_for_the_thing_asked_announces(
    query: str, older: str, newer: str, new: str
) -> None:
    frame = question_frame(query)
    assert frame is not None
    found = announcement(frame, older, newer)
    assert found is not None and found.new_values == (new,)
    # with no older answer to anchor it, nothing says what "ours" is
    assert announced_values(frame, newer) == []


def test_the_one_revised_statement_may_leave_the_subject_to_its_paragraph() -> None:
    frame = question_frame("When does The Quiet Ledger newsletter go out?")
    assert frame is not None
    older = (
        "Newsletter about page: The Quiet Ledger is a weekly newsletter on personal finance. "
        "Every issue lands in your inbox on Sunday morning with one practical idea, one chart, "
        "and one question from a reader. "
        "It is written by Abby Lin, a former bank analyst."
    )
    newer = (
        "Newsletter about page: The Quiet Ledger is a weekly newsletter on personal finance. "
        "Each issue now arrives on Thursday evening with one practical idea, one chart and one "
        "reader question. "
        "It's written by Abby Lin, a former bank analyst."
    )
    found = revision(frame, older, newer)
    assert found is not None and found.change.new_values == ("Thursday", "evening")
    # a value of another kind than the answer's, in a statement that does not name the
    # subject, is no revision of the answer
    assert revision(frame, older, older.replace("Abby Lin", "Tom Reyes")) is None


def test_a_when_question_asks_for_a_time_whatever_amount_it_names() -> None:
    # "budget" names an amount; "When ...?" asks for a day
    frame = question_frame("When is the monthly budget review?")
    assert frame is not None and "day" in frame.kinds
    older = "Our monthly budget review with Sam happens on the first Sunday."
    newer = "Monthly budget reviews are on the last Friday now, right after payday."
    found = announcement(frame, older, newer)
    assert found is not None and found.new_values == ("Friday",)


def test_a_value_read_on_its_own_is_replaced_by_any_value_of_its_kind() -> None:
    # only an answer found by its type word alone ("the payments team") needs a new one said
    # with the type word; a name read on its own ("ledger-state" before "bucket") does not
    frame = question_frame("Which bucket holds the ledger's Terraform state?")
    assert frame is not None
    older = "The ledger's Terraform state is kept in the ledger-state bucket."
    newer = "The ledger's Terraform state moved to tfstate-ledger-prod."
    assert answers(frame, older)
    found = announcement(frame, older, newer)
    assert found is not None and found.new_values == ("tfstate-ledger-prod",)


@pytest.mark.parametrize(
    ("older", "newer", "change"),
    [
        # a request beside the old value negates what the reader does, not the value
        (
            "fyi: release notes go in #rel-notes, please don't post them in #general",
            "we renamed the release notes channel to #changelog last week",
            ("#rel-notes", "#changelog"),
        ),
        # a request that is the statement itself still refuses
        (
            "Please don't post release notes in #rel-notes",
            "we renamed the release notes channel to #changelog last week",
            None,
        ),
    ],
)
def test_a_request_beside_the_value(older: str, newer: str, change: tuple[str, str] | None) -> None:
    frame = question_frame("Which Slack channel do release notes go in?")
    assert frame is not None
    assert_change(announcement(frame, older, newer), change)


@pytest.mark.parametrize(
    ("newer", "change"),
    [
        # "planning" as a noun ("doing shift planning") hedges nothing
        (
            "Saw Teodor at the gym, he's at Vantage Rail these days doing shift planning.",
            ("Halden", "Vantage"),
        ),
        # planning a move is no move yet
        ("Teodor is planning to move to Vantage Rail these days.", None),
        ("Teodor is planning a switch to Vantage Rail.", None),
    ],
)
def test_planning_as_a_noun(newer: str, change: tuple[str, str] | None) -> None:
    frame = question_frame("Where does Teodor work?")
    assert frame is not None
    found = announcement(frame, "Teodor works at Halden as a dispatcher.", newer)
    if change is None:
        assert found is None
    else:
        assert found is not None and found.old_values == (change[0],)
        assert change[1] in found.new_values


def test_from_this_week_is_a_change_word() -> None:
    frame = question_frame("Where are choir rehearsals?")
    assert frame is not None
    older = "Choir rehearsals are at St Anne's hall."
    found = announcement(frame, older, "Choir rehearsals are at the Foundry from this week.")
    assert found is not None and "Foundry" in found.new_values
    assert announcement(frame, older, "Choir rehearsals are at the Foundry this week.") is None


@pytest.mark.parametrize(
    ("newer", "announced"),
    [
        # the value's clause names no subject; the clause before it names the subject with a
        # change word and no value
        (
            "Artifact store got migrated, point your builds at bx-02.corp.lan from now on.",
            True,
        ),
        # the clause before says no change
        (
            "Artifact store is slow today, point your builds at bx-02.corp.lan from now on.",
            False,
        ),
        # nor may the value's clause go without a change word
        ("Artifact store got migrated, bx-02.corp.lan has the dashboards.", False),
        # the clause before names another thing
        ("Log shipper got migrated, point your builds at bx-02.corp.lan from now on.", False),
    ],
)
def test_a_change_carried_from_the_clause_before(newer: str, announced: bool) -> None:
    frame = question_frame("What's the hostname of the artifact store?")
    assert frame is not None
    older = "The artifact store host is bx-01.corp.lan."
    assert answers(frame, older)
    found = announcement(frame, older, newer)
    assert (found is not None) is announced
    if found is not None:
        assert found.new_values == ("bx-02.corp.lan",)


def test_a_change_carried_needs_the_type_word() -> None:
    # "switched vets" is no news of the food, whatever the clause after it names
    frame = question_frame("What food does Biscuit eat?")
    assert frame is not None
    older = "Biscuit eats the Acana senior kibble, the vet insisted."
    newer = "Biscuit switched vets - we go to Dr. Moss at Eastside Animal Clinic now"
    assert announcement(frame, older, newer) is None


def test_the_version_asked_after_the_things_name() -> None:
    # "Kong 3.4" is the version asked of Kong, not a version of another thing the subject runs
    frame = question_frame("What version of Traefik does the edge proxy run?")
    assert frame is not None
    older = "Edge proxy is Traefik 2.9, running with the file provider."
    newer = "Upgrade done: the edge proxy is on Traefik 3.1 as of last night."
    assert_change(announcement(frame, older, newer), ("2.9", "3.1"))
    # asked for another attribute, the number after the name stays the name's version
    port = question_frame("Which port does the edge proxy listen on?")
    assert port is not None
    assert announcement(port, "Edge proxy listens on 8443.", newer) is None


@pytest.mark.parametrize(
    ("older", "answers_it"),
    [
        ("Our office is in Leeds, five minutes from the station.", True),
        ("The office moved to Leeds last spring.", True),
        # no place said after a locative
        ("Our office has a rooftop terrace with a view of Leeds Minster.", False),
    ],
)
def test_a_city_is_said_by_its_name_after_a_locative(older: str, answers_it: bool) -> None:
    frame = question_frame("Which city is the office in?")
    assert frame is not None
    assert answers(frame, older) is answers_it


def test_a_recurring_old_place_is_said_as_a_place() -> None:
    # "Mila" is repeated and tied to the lessons, but never said as a place: no old answer to
    # "Where ...?"; the pool said at a place is one
    question = "Where do the kids take swim lessons?"
    first = cand("Swim lessons for Jonah and Mila are on Wednesdays, 4:30.", 0)
    second = cand("Mila passed her stage 4 badge! Full length of front crawl now.", 2)
    new = cand("Moved the kids' swim lessons to the Northgate pool, the parking is easier.", 6)
    outcome = apply([first, second, new], question)
    assert outcome.dropped == []
    assert all(c.stale_sentences == () for c in outcome.kept)
    first = cand("Swim lessons for Jonah and Mila are at Hollins Baths on Wednesdays.", 0)
    second = cand("Parking at Hollins Baths was full again, circled for ten minutes.", 2)
    outcome = apply([first, second, new], question)
    assert second.id in _dropped(outcome)


def test_a_past_life_event_is_changed_only_by_saying_it_again() -> None:
    # "grew up" happened once: news of where she works now says nothing of it
    frame = question_frame("Where did Naomi grow up?")
    assert frame is not None and frame.verb == root("grow") and "up" not in frame.subject
    older = "Naomi grew up on a dairy farm outside Cork, up at five for milking."
    assert announcement(frame, older, "Naomi is the pastry chef at Verdant now.") is None
    # a correction says the event again
    found = announcement(frame, older, "Correction: Naomi actually grew up in Galway now.")
    assert_change(found, ("Cork", "Galway"))
    # a question about the present is changed by the same news
    works = question_frame("Where does Naomi work?")
    assert works is not None
    found = announcement(works, "Naomi works at Lune.", "Naomi is the chef at Verdant now.")
    assert_change(found, ("Lune", "Verdant"))


@pytest.mark.parametrize(
    ("newer", "change"),
    [
        # one more region in service, beside the old one
        ("ap-southeast-2 is live for orders-api as of this morning.", None),
        # something new replacing the old one, or a move
        (
            "orders-api is live in the new ap-southeast-2 region as of this morning.",
            "ap-southeast-2",
        ),
        ("orders-api moved to ap-southeast-2 as of this morning.", "ap-southeast-2"),
    ],
)
def test_going_live_adds_one_more(newer: str, change: str | None) -> None:
    frame = question_frame("Which AWS region does orders-api run in?")
    assert frame is not None
    found = announcement(frame, "orders-api runs in eu-west-1.", newer)
    assert_change(found, None if change is None else ("eu-west-1", change))


def test_going_live_is_the_change_where_the_question_asks_what_is_live() -> None:
    frame = question_frame("Which build is live on the kiosk?")
    assert frame is not None
    found = announcement(
        frame, "Build kiosk-41 is live on the kiosk.", "Build kiosk-42 is live on the kiosk now."
    )
    assert_change(found, ("kiosk-41", "kiosk-42"))


def test_a_name_beside_the_subjects_is_another_person_not_the_answer() -> None:
    frame = question_frame("Where does Lena work?")
    assert frame is not None
    older = "Lena works at Okapi Health these days, doing analytics for their clinics."
    assert announcement(frame, older, "Lena and Jonas are finally moving in together.") is None
    assert announcement(frame, older, "Jonas and Lena are finally moving in together.") is None
    # the one asked about who, the name beside the subject's may be the answer
    who = question_frame("Who is Lena moving in with?")
    assert who is not None
    found = announcement(
        who, "Lena is moving in with Marta in May.", "Lena and Jonas are moving in together now."
    )
    assert found is not None and "Jonas" in found.new_values


def test_an_aside_refuses_its_own_values_only() -> None:
    frame = question_frame("Which region is the internal wiki hosted in?")
    assert frame is not None
    older = "The internal wiki is hosted in the Frankfurt region, same account as the CRM."
    assert answers(frame, older)
    found = announcement(frame, older, "After the migration weekend the wiki now lives in Oslo.")
    assert_change(found, ("Frankfurt", "Oslo"))
    # a refusal of the clause that gives the value still refuses it
    assert not answers(frame, "The internal wiki is not hosted in the Frankfurt region.")
    # and so does one beside it that gives every value
    assert not answers(frame, "The wiki is hosted in Frankfurt region, same as always.")


def test_the_things_own_workspace_is_the_thing() -> None:
    frame = question_frame("Which Notion plan are we on?")
    assert frame is not None
    older = "We're on the Team plan for Notion, max 50 members."
    newer = "Upgraded the notion workspace to the Business plan so we get SAML."
    assert_change(announcement(frame, older, newer), ("Team", "Business"))
    # another thing the subject word modifies stays another thing
    assert announcement(frame, older, "Upgraded the notion importer to the Business tier.") is None


def test_a_part_of_a_city_is_no_city() -> None:
    frame = question_frame("Which city does Sam live in?")
    assert frame is not None
    newer = "Sam just moved into a new apartment in the Pearl District, has a balcony"
    assert announcement(frame, "Sam lives in Portland.", newer) is None
    assert_change(
        announcement(frame, "Sam lives in Portland.", "Sam just moved to Denver, new job."),
        ("Portland", "Denver"),
    )


def test_a_reason_naming_the_old_place_and_a_homes_room() -> None:
    frame = question_frame("Where does the D&D group meet?")
    assert frame is not None
    older = "Our D&D group meets at Sam's place, he has the big table."
    newer = "Since Sam's renovating, the D&D group was relocated to Jo's basement for now on."
    assert_change(announcement(frame, older, newer), ("Sam's", "Jo's"))
    # the old value said again outside a reason: no old answer
    again = "The D&D group was relocated to Jo's basement, Sam's is for snacks."
    assert announcement(frame, older, again) is None


def test_a_size_word_before_the_type_word_is_no_name() -> None:
    frame = question_frame("Which Redis host holds the session cache?")
    assert frame is not None
    older = "Session cache is a single Redis box, cache-01.internal."
    newer = "Session cache moved to the ElastiCache cluster at sessions-prod.cache.amazonaws.com."
    found = announcement(frame, older, newer)
    assert found is not None and found.old_values == ("cache-01.internal",)


def test_a_word_the_question_asks_is_no_change_word() -> None:
    frame = question_frame("What laptop do new engineers get?")
    assert frame is not None
    older = "New engineers receive a ThinkPad X1 Carbon, and we use 1Password for everything."
    newer = "Buddy assignments for new hires are posted in #onboarding the Friday before."
    assert announcement(frame, older, newer) is None


def test_a_value_set_off_after_its_clause_is_read_with_it() -> None:
    frame = question_frame("What is the default branch of the docs repo?")
    assert frame is not None
    # the apposed value is the clause's, and so is the clause's "own": another thing's own
    assert not answers(frame, "The docs repo has its own default branch, gh-pages, that's all.")
    assert answers(frame, "The docs repo has a default branch, gh-pages.")


def test_a_line_of_several_keys_is_the_line_that_shares_one() -> None:
    # a signature's defaults are keys of its line: the revised excerpt's signature line
    # shares one with the older one's, and the raised exception is the revised statement
    frame = question_frame("What is raise in falcon/request.py?")
    assert frame is not None
    excerpt = (
        "falcon/request.py:\n                return None\n\n            raise {}(name)\n\n"
        "    def {}"
    )
    older = excerpt.format("HTTPMissingParam", "get_param(self, name, required=False, store=None):")
    newer = excerpt.format("HTTPMissingHeader", "get_header(self, header, required=False):")
    found = revision(frame, older, newer)
    assert found is not None and found.change.new_values == ("HTTPMissingHeader",)


def test_a_statement_that_says_nothing_changes_announces_nothing() -> None:
    # floated, then "nothing changes": no announcement, so no old answer inferred from the
    # names the older statements repeat
    question = "Who is the account manager for Helmsworth Logistics?"
    profile = cand(
        "Account profile: Helmsworth Logistics. Their account manager is Dana Whitfield. "
        "Technical contact on their side is Gareth Moss, head of IT.",
        0,
    )
    history = cand("Helmsworth support history. Gareth Moss gave the team a nine out of ten.", 30)
    floated = cand(
        "We floated moving Helmsworth to the partner-managed channel through Northgate, but "
        "they want a direct relationship, so nothing changes.",
        60,
    )
    outcome = apply([profile, history, floated], question)
    assert outcome.dropped == [] and all(k.stale_sentences == () for k in outcome.kept)


def test_the_hostname_is_the_answer_where_a_value_has_its_shape() -> None:
    frame = question_frame("What's the hostname of the staging database?")
    assert frame is not None
    found = announcement(
        frame,
        "Staging Postgres is on db-stg-02.internal if anyone needs it.",
        "Staging database moved to db-stg-07.internal after the disk failure.",
    )
    assert found is not None and found.old_values == ("db-stg-02.internal",)


def test_a_word_of_the_attribute_asked_is_never_left_out() -> None:
    # "formal" of "the formal name of ...": the words that stand for the attribute asked
    frame = question_frame("What was the formal name of Dixie state university")
    assert frame is not None and frame.asked_of == {"formal"}
    assert not answers(
        frame, "Dixie State University ( DSU or , colloquially , Dixie ) is a public university."
    )
    # the head of "rate limit" is the attribute, "rate" its modifier
    frame = question_frame("What is the rate limit for partner API keys?")
    assert frame is not None and frame.asked_of == {"limit"}


def test_codes_are_numbers_or_names() -> None:
    frame = question_frame("What's the locker room code at the climbing gym?")
    assert frame is not None and frame.kinds == {"name", "number"}
    assert answers(frame, "locker room door code at the climbing gym: 4471#")


@pytest.mark.parametrize(
    ("question", "older", "newer", "change"),
    [
        # the question's own closing preposition right before a name: its answer
        (
            "Which team is Amara on?",
            "Amara's on Payments, she's the one who built the refund flow.",
            "Amara has been moved to Growth as of this sprint, so route checkout questions on.",
            ("Payments", "Growth"),
        ),
        # another word for the group asked ("squad" for "team")
        (
            "Which team is Marta on?",
            "Marta sits with the Payments squad, she's the one who knows the ledger code best.",
            "Marta has been moved to Growth as of this sprint.",
            ("Payments", "Growth"),
        ),
        # the one who has taken the role over; a who-question's old answer is a person's name
        (
            "Who is the release manager?",
            "Release manager for Q3 is Benedikt.",
            "Our RM went on parental leave today; Saoirse has taken over as release manager "
            "for the rest of the quarter.",
            ("Benedikt", "Saoirse"),
        ),
        # a branch is named in lower case
        (
            "What is the default branch of the mobile repo?",
            "Default branch for the mobile repo is master.",
            "The mobile repo's default branch was renamed to trunk; update your local remotes.",
            ("master", "trunk"),
        ),
        (
            "What's the monorepo's default branch?",
            "Default branch for the monorepo is master, PRs target it.",
            "We renamed the default branch to main this weekend; update your local remotes.",
            ("master", "main"),
        ),
    ],
)
def test_an_answer_in_the_question_s_own_terms_is_announced_over(
    question: str, older: str, newer: str, change: tuple[str, str]
) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert_change(announcement(frame, older, newer), change)


@pytest.mark.parametrize(
    ("question", "older", "newer"),
    [
        # a group of another kind than the one asked is no answer, old or new
        (
            "Which board is Priya on?",
            "Priya's on the Platform Guild and the incident review board.",
            "Priya is now sitting with the Data Reliability team three days a week.",
        ),
        ("Which team is Priya on?", "Priya's on Platform.", "Priya moved to the Data Guild."),
        # "the main thing" names no branch
        (
            "What's the monorepo's default branch?",
            "Default branch for the monorepo is master.",
            "The main thing now is to retarget the open PRs.",
        ),
    ],
)
def test_a_name_of_another_kind_announces_nothing(question: str, older: str, newer: str) -> None:
    frame = question_frame(question)
    assert frame is not None
    assert announcement(frame, older, newer) is None


def test_a_branch_s_recurring_old_name_is_a_branch_name() -> None:
    # "green CI" twice is no old name of the default branch
    first = cand("Open PRs against it, CI won't run on other bases.", 0)
    second = cand("Branch protection requires two approvals and green CI.", 2)
    new = cand("Default branch of the monorepo is now main. Retarget any open PRs.", 6)
    outcome = apply([first, second, new], "What's the default branch of the monorepo?")
    assert outcome.dropped == []


@pytest.mark.parametrize(
    ("newer", "change"),
    [
        # the asked thing by fewer words, its one new number in the old answer's unit
        (
            "Portal upload cap got bumped to 100 MB because the architects kept asking.",
            ("25", "100"),
        ),
        # another thing of the portal, in the same unit
        ("Portal avatar limit got bumped to 5 MB.", None),
        # no change word
        ("Portal upload cap is 100 MB for admins.", None),
        # another unit
        ("Portal upload cap got bumped to 100 files a day.", None),
    ],
)
def test_a_new_number_in_the_old_answer_s_unit_is_announced(
    newer: str, change: tuple[str, str] | None
) -> None:
    frame = question_frame("What's the max upload size on the portal?")
    assert frame is not None
    older = "Max upload size on the portal is 25 MB per file."
    assert_change(announcement(frame, older, newer), change)


def test_the_question_s_verb_said_as_its_noun_answers() -> None:
    # "insurance" says "insures", and the subject's word before it modifies no other thing
    frame = question_frame("Which company insures the car?")
    assert frame is not None
    assert answers(frame, "Car insurance is with Geico, renews in March.")
    assert_change(
        announcement(
            frame,
            "Car insurance is with Geico, renews in March.",
            "Moved the car insurance to Progressive, bundled with renters.",
        ),
        ("Geico", "Progressive"),
    )
    # a noun that only starts like the verb names another thing
    assert not answers(frame, "Car insulation is by Kingspan.")


def test_a_number_of_a_port_s_shape_is_a_port_only_where_a_service_is_on_it() -> None:
    frame = question_frame("What port does the billing API listen on?")
    assert frame is not None
    # a status code is no port, whatever its digits
    assert not answers(frame, "billing-api health check lives at /healthz and returns 200.")
    assert answers(frame, "heads up, billing-api in the dev cluster is on 8443, not the default")
