"""What the sweep generator says: entity types, their states, and utterances that imply a state
without naming it.

Behavioural templates are written once for both grammatical persons. Placeholders:
``{S}`` the subject at the start of the sentence ("I", "Priya", or "Priya mentioned that
she"), ``{pos}`` possessive ("my"/"her"), ``{obj}`` object pronoun ("me"/"her"), ``{was}``
("was"/"were"), and slot names from ``SLOTS`` (``{park}``, ``{friend}``, ...). Verbs are in
the past tense, so no agreement is needed. No template may contain a recency or change marker
(``bench.scenarios.markers``) or the label of the state it implies; tests enforce both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    name: str
    subject: str  # pronoun used after a reporting verb ("Priya mentioned that she ...")
    obj: str
    pos: str

    @property
    def was(self) -> str:
        return "were" if self.subject == "they" else "was"


FIRST_PERSON = Person("I", "I", "me", "my")

PEOPLE: tuple[Person, ...] = (
    Person("Priya", "she", "her", "her"),
    Person("Tomás", "he", "him", "his"),
    Person("Aiko", "she", "her", "her"),
    Person("Jonas", "he", "him", "his"),
    Person("Fatima", "she", "her", "her"),
    Person("Noah", "he", "him", "his"),
    Person("Elena", "she", "her", "her"),
    Person("Kwame", "he", "him", "his"),
    Person("Sam", "they", "them", "their"),
    Person("Mei", "she", "her", "her"),
    Person("Omar", "he", "him", "his"),
    Person("Ingrid", "she", "her", "her"),
    Person("Diego", "he", "him", "his"),
    Person("Zoe", "she", "her", "her"),
    Person("Arjun", "he", "him", "his"),
    Person("Lucia", "she", "her", "her"),
    Person("Rafael", "he", "him", "his"),
    Person("Hannah", "she", "her", "her"),
    Person("Yusuf", "he", "him", "his"),
    Person("Alex", "they", "them", "their"),
)

REPORTING_VERBS = ("mentioned that", "told me that", "said that", "wrote in the group chat that")
# Optional openings that vary a behavioural utterance without changing what it implies; only
# used on templates that do not already name a day.
OPENINGS = ("On {day}, ", "Over the weekend, ", "One {day}, ", "During the {month} holidays, ")

# Slot values never name a person from PEOPLE, so a distractor about a friend is never about the
# instance's subject.
SLOTS: dict[str, tuple[str, ...]] = {
    "day": (
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Saturday morning",
        "Sunday afternoon",
        "Friday evening",
    ),
    "friend": ("Dana", "Lee", "Marta", "Kofi", "Ravi", "Greta", "Hugo", "Nina", "Pablo", "Wen"),
    "park": (
        "Victoria Park",
        "the riverside park",
        "Hampstead Heath",
        "the botanical gardens",
        "the park by the canal",
        "Regent's Park",
    ),
    "street": (
        "Elm Street",
        "the high street",
        "Baker Street",
        "Market Street",
        "King's Road",
        "Harbour Road",
    ),
    "building": (
        "the office",
        "the library",
        "the train station",
        "the museum",
        "the town hall",
        "the shopping centre",
    ),
    "restaurant": (
        "Luigi's",
        "the Thai place on the corner",
        "Café Rosa",
        "the bistro by the harbour",
        "Sakura",
        "the tapas bar on Market Street",
    ),
    "venue": ("the Blue Note", "the community hall", "the Crown pub", "the arts centre"),
    "town": ("Bath", "Porto", "Bruges", "York", "Ghent", "Lyon", "Bologna"),
    "km": ("5", "8", "10", "12", "15", "21"),
    "laps": ("40", "50", "60", "80"),
    "month": ("April", "May", "September", "October"),
    "company": ("Acme", "Northwind", "Globex", "Initech", "Umbrella Logistics", "Vandelay"),
    "team": ("payments", "platform", "growth", "data", "mobile"),
    "train": ("7:40 train", "8:15 express", "early commuter service"),
    "road": ("the ring road", "the bypass", "the bridge approach", "the motorway"),
    "partner": ("Alexis", "Jordan", "Robin", "Morgan", "Casey", "Jamie"),
    "pet": ("Biscuit", "Luna", "Pepper", "Milo", "Olive", "Ziggy"),
    "hill": ("Snowdon", "Ben Nevis", "the ridge above town", "Pen y Fan"),
    "crag": ("Stanage Edge", "the quarry", "the sea cliffs", "Malham Cove"),
    "topic": (
        "volcanoes",
        "the Roman empire",
        "deep-sea fish",
        "jazz history",
        "urban planning",
        "chess openings",
        "bridge engineering",
    ),
    "book": ("Middlemarch", "Dune", "Beloved", "Moby-Dick", "Persuasion", "Solaris"),
}


@dataclass(frozen=True)
class BehaviorType:
    """An attribute of a person that changes, observed only through what people do."""

    name: str
    question: str  # "{who}" = "the user" / "Priya"; "{whose}" = "the user's" / "Priya's"
    states: dict[str, tuple[str, ...]]


BEHAVIORS: tuple[BehaviorType, ...] = (
    BehaviorType(
        "fitness",
        "How physically fit is {who}?",
        {
            "out of shape": (
                "{S} had to stop halfway up the stairs at {building} to catch {pos} breath.",
                "{S} got winded running for the bus on {street}.",
                "{S} skipped the walk with {friend} because even a short stroll leaves {obj} "
                "exhausted.",
                "{S} needed a rest on a bench ten minutes into a walk around {park}.",
                "{S} {was} sore for two days from carrying the shopping up one flight of stairs.",
                "{S} gave up on the hike with {friend} at the first hill.",
                "{S} took the lift to the second floor at {building} rather than face the stairs.",
                "{S} spent the whole of {day} on the sofa and felt stiff getting up.",
            ),
            "athletic": (
                "{S} ran {km} kilometres along {park} ahead of breakfast.",
                "{S} finished a {km}-kilometre trail race with {friend} and felt fresh at the end.",
                "{S} did four sets of pull-ups at the gym on {day} without a break.",
                "{S} swam {laps} lengths of the pool at lunchtime.",
                "{S} cycled up the hill to {building} without getting off the bike once.",
                "{S} led the {day} bootcamp class at {park} and barely broke a sweat.",
                "{S} carried {friend}'s sofa up three flights of stairs without pausing.",
                "{S} signed up for the marathon in {month} and ran the long training loop on "
                "{day}.",
            ),
        },
    ),
    BehaviorType(
        "employment",
        "What is {whose} employment situation?",
        {
            "employed": (
                "{S} had back-to-back meetings with the {team} team at the office until six.",
                "{S} filed the quarterly report ahead of {pos} manager's deadline on {day}.",
                "{S} took the {train} in for the nine o'clock stand-up with {pos} team.",
                "{S} used a day of paid leave to visit {friend} in {town}.",
                "{S} got {pos} payslip on {day} and paid the rent from it.",
                "{S} spent {day} at the office onboarding two interns for the {team} team.",
            ),
            "looking for work": (
                "{S} spent {day} tailoring {pos} CV for three more job applications.",
                "{S} had a screening call with a recruiter from {company} about an open position.",
                "{S} went to the job centre on {street} to sign on for benefits.",
                "{S} spent the morning scrolling job boards and sent out two cover letters.",
                "{S} practised interview answers with {friend} ahead of the panel at {company}.",
                "{S} had no work calls on the calendar and spent {day} on applications.",
            ),
            "freelancing": (
                "{S} invoiced two clients on {day} and chased a third for late payment.",
                "{S} worked from the co-working space on {street} on a logo job for a bakery.",
                "{S} pitched {pos} services to a small agency and quoted a day rate.",
                "{S} set aside part of a client payment for the self-assessment tax bill.",
                "{S} turned down a client project on {day} to keep {pos} calendar manageable.",
            ),
        },
    ),
    BehaviorType(
        "diet",
        "What diet does {who} follow?",
        {
            "omnivore": (
                "{S} ordered the ribeye at {restaurant} and asked for it medium-rare.",
                "{S} made a chicken and chorizo paella for {friend} on {day}.",
                "{S} picked up bacon and sausages for the weekend fry-up.",
                "{S} had a double cheeseburger at the food market on {street}.",
                "{S} roasted a leg of lamb with rosemary for the family on {day}.",
                "{S} grabbed a ham and cheese sandwich between meetings.",
            ),
            "vegetarian": (
                "{S} checked that the risotto at {restaurant} used vegetable stock, not chicken.",
                "{S} cooked a spinach and ricotta lasagne for {friend} on {day}.",
                "{S} passed on the burgers at the barbecue and had the grilled halloumi.",
                "{S} picked the mushroom stroganoff at the canteen and skipped the beef.",
                "{S} made an omelette with feta and peppers for lunch.",
                "{S} bought paneer and eggs at the market on {street}.",
            ),
            "vegan": (
                "{S} made oat milk at home and a tofu scramble for breakfast.",
                "{S} read the label on a chocolate bar, saw milk powder, and put it back.",
                "{S} cooked a lentil and chickpea curry with coconut milk for {friend}.",
                "{S} asked the bakery on {street} whether the croissants had butter and left "
                "without one.",
                "{S} ordered the jackfruit tacos with cashew cream at {restaurant}.",
                "{S} brought a cake with no dairy and no eggs to {friend}'s birthday.",
            ),
        },
    ),
    BehaviorType(
        "residence",
        "Which city does {who} live in?",
        {
            "Lisbon": (
                "{S} took tram 28 up through Alfama to get home.",
                "{S} bought custard tarts in Belém on the way back to the flat.",
                "{S} walked home along the Tagus from work.",
                "{S} watched the sunset from the miradouro near {pos} flat in Graça.",
                "{S} paid the water bill for the flat in Alvalade.",
            ),
            "Barcelona": (
                "{S} walked home past the Sagrada Família from work.",
                "{S} took the L3 metro to Plaça de Catalunya near {pos} apartment.",
                "{S} swam at Barceloneta beach and headed home.",
                "{S} bought the week's groceries at La Boqueria.",
                "{S} paid the rent for the flat in Gràcia.",
            ),
            "Berlin": (
                "{S} cycled home through the Tiergarten.",
                "{S} caught the Ringbahn back to {pos} flat in Neukölln.",
                "{S} bought a drink at the Späti under the apartment in Kreuzberg.",
                "{S} registered {pos} address at the Bürgeramt in Pankow.",
                "{S} walked home past the East Side Gallery.",
            ),
            "Tokyo": (
                "{S} transferred to the Odakyu line at Shinjuku on the way home.",
                "{S} bought dinner at the konbini under {pos} apartment in Setagaya.",
                "{S} rode the Yamanote line home from work.",
                "{S} sorted the burnable rubbish for Thursday's collection at the apartment in "
                "Nakano.",
            ),
            "Chicago": (
                "{S} took the Blue Line home from the Loop.",
                "{S} walked the lakefront trail near {pos} apartment in Lincoln Park.",
                "{S} shovelled snow off the steps of the two-flat in Logan Square.",
                "{S} grabbed a deep-dish pizza on the way home from Wrigleyville.",
            ),
            "Edinburgh": (
                "{S} walked home down the Royal Mile.",
                "{S} climbed Arthur's Seat and headed back to the flat in Leith.",
                "{S} caught the tram home along Princes Street.",
                "{S} paid the council tax for the flat in Marchmont.",
            ),
        },
    ),
    BehaviorType(
        "relationship",
        "What is {whose} relationship status?",
        {
            "single": (
                "{S} went on two first dates through a dating app on {day}.",
                "{S} spent {day} swiping on a dating app while {friend} gave advice.",
                "{S} went to the speed-dating night at {venue} on {day}.",
                "{S} told the family there was nobody special to bring to the wedding.",
                "{S} booked a table for one at {restaurant} and enjoyed the quiet.",
            ),
            "in a relationship": (
                "{S} took {pos} partner {partner} to {restaurant} for their anniversary.",
                "{S} spent the weekend in {town} with {pos} partner {partner}.",
                "{S} had dinner with {partner}'s parents, who asked when the two of them would "
                "get a place together.",
                "{S} argued with {partner} about whose turn it was to plan date night.",
                "{S} bought flowers for {partner} on {day} to say sorry.",
            ),
            "married": (
                "{S} filed a joint tax return with {pos} spouse {partner} on {day}.",
                "{S} celebrated the wedding anniversary with {partner} at {restaurant}.",
                "{S} added {partner} as {pos} spouse on the health insurance policy.",
                "{S} wore {pos} wedding ring to the {day} dinner with {partner}'s family.",
                "{S} signed the mortgage papers with {pos} spouse {partner}.",
            ),
        },
    ),
    BehaviorType(
        "pets",
        "What pet does {who} have?",
        {
            "no pets": (
                "{S} told the landlord there would be no animals in the flat.",
                "{S} came home to a quiet flat with nobody to feed.",
                "{S} went away for the weekend without needing a sitter or a kennel.",
                "{S} sneezed all afternoon at {friend}'s place and was glad to get home to a "
                "fur-free flat.",
                "{S} fed {friend}'s goldfish for a week, having no animals at home.",
            ),
            "a dog": (
                "{S} walked the terrier around {park} at six in the morning.",
                "{S} bought a bag of kibble and a chew toy at the pet shop on {street}.",
                "{S} booked a kennel for the weekend trip to {town}.",
                "{S} spent the evening teaching {pet} to sit and stay.",
                "{S} carried a pocketful of poo bags for {pet} on the walk through {park}.",
            ),
            "a cat": (
                "{S} cleaned the litter tray ahead of heading out.",
                "{S} woke at five because {pet} was purring on the pillow.",
                "{S} bought a scratching post because {pet} shredded the arm of the sofa.",
                "{S} took {pet} to the vet in a carrier for a hairball problem.",
                "{S} found {pet} asleep in the laundry basket, whiskers twitching.",
            ),
        },
    ),
    BehaviorType(
        "smoking",
        "Does {who} smoke?",
        {
            "smokes": (
                "{S} stepped outside for a cigarette at the end of the meeting.",
                "{S} bought two packs of cigarettes at the kiosk on {street}.",
                "{S} stood in the smoking area at {venue} with {friend} between sets.",
                "{S} asked {friend} for a lighter at the end of dinner.",
                "{S} rolled a cigarette on the balcony ahead of bed.",
            ),
            "does not smoke": (
                "{S} turned down a cigarette from {friend}; the smell makes {obj} queasy.",
                "{S} asked for a non-smoking room at the hotel in {town}.",
                "{S} asked the people at the next table to take their cigarettes elsewhere.",
                "{S} aired out the flat for an hour to get rid of the smoke {friend}'s guests "
                "left.",
                "{S} told the doctor that cigarettes were never part of {pos} life.",
            ),
        },
    ),
    BehaviorType(
        "sleep",
        "How well does {who} sleep?",
        {
            "poorly": (
                "{S} lay awake staring at the ceiling until three in the morning.",
                "{S} woke up four times in the night and gave up at five.",
                "{S} needed three coffees to get through the morning from lack of sleep.",
                "{S} dozed off at {pos} desk from tossing and turning all night.",
                "{S} bought blackout curtains and a white-noise machine hoping to get some rest.",
            ),
            "well": (
                "{S} slept a solid eight hours and woke up ahead of the alarm.",
                "{S} fell asleep within minutes of going to bed.",
                "{S} felt completely rested from a long, uninterrupted night.",
                "{S} needed no alarm on {day} and woke up refreshed at seven.",
                "{S} skipped the afternoon coffee, having slept like a log.",
            ),
        },
    ),
    BehaviorType(
        "transport",
        "How does {who} get to work?",
        {
            "drives": (
                "{S} sat in traffic on {road} for forty minutes and paid for parking downtown.",
                "{S} filled up the car with petrol on the way into the office.",
                "{S} circled the office car park twice looking for a space.",
                "{S} got a parking ticket outside the office on {street}.",
            ),
            "cycles": (
                "{S} rode to the office along the canal path and locked up at the bike rack.",
                "{S} fixed a puncture on the way to work and arrived with oily hands.",
                "{S} showered at the office from the ride in through {park}.",
                "{S} bought panniers to carry {pos} laptop on the commute.",
            ),
            "takes the train": (
                "{S} caught the {train} into the city and read on the way.",
                "{S} topped up {pos} season ticket for the commuter line.",
                "{S} {was} late to the office because of signal failures on the line.",
                "{S} got a seat on the {train} and answered emails on the way in.",
            ),
        },
    ),
    BehaviorType(
        "job role",
        "What is {whose} role at work?",
        {
            "software engineer": (
                "{S} spent the afternoon debugging a memory leak in the billing service.",
                "{S} reviewed three pull requests and fixed a flaky integration test.",
                "{S} {was} on call and rolled back a bad deploy at two in the morning.",
                "{S} wrote the database migration script for the orders table.",
            ),
            "engineering manager": (
                "{S} spent the afternoon in one-on-ones with {pos} direct reports.",
                "{S} wrote performance reviews for the five people on {pos} team.",
                "{S} interviewed two candidates for an opening on {pos} team and wrote up the "
                "hiring decision.",
                "{S} planned the team's quarter and negotiated headcount with {pos} director.",
            ),
            "product manager": (
                "{S} wrote the requirements doc for the checkout redesign.",
                "{S} ran a customer interview and reprioritised the roadmap backlog.",
                "{S} presented the quarterly roadmap to the sales team.",
                "{S} ran sprint planning and cut two features from the release scope.",
            ),
        },
    ),
    BehaviorType(
        "health",
        "What is {whose} health situation?",
        {
            "injured knee": (
                "{S} hobbled to the kitchen on crutches and iced {pos} knee.",
                "{S} had a physio appointment for {pos} torn ligament on {day}.",
                "{S} took the lift because the knee brace makes stairs impossible.",
                "{S} sat out the five-a-side match with {pos} leg up on a chair.",
            ),
            "healthy": (
                "{S} played five-a-side football for an hour with no pain.",
                "{S} hiked up {hill} with {friend} and jogged the last stretch.",
                "{S} got a clean bill of health at the check-up on {day}.",
                "{S} danced all night at {friend}'s wedding.",
            ),
        },
    ),
    BehaviorType(
        "hobby",
        "What is {whose} main hobby?",
        {
            "painting": (
                "{S} spent {day} mixing ochre and cobalt for a landscape on canvas.",
                "{S} bought a set of sable brushes and a tube of titanium white.",
                "{S} set up an easel by the river in {park} to catch the evening light.",
                "{S} varnished the finished seascape and hung it in the hallway.",
            ),
            "rock climbing": (
                "{S} chalked up and sent a V4 problem at the bouldering gym.",
                "{S} spent {day} at {crag} with {friend} on belay.",
                "{S} resoled {pos} climbing shoes, worn through at the toes.",
                "{S} practised lead falls at the wall on {day}.",
            ),
            "playing guitar": (
                "{S} practised barre chords until {pos} fingertips hurt.",
                "{S} restrung the acoustic for the open-mic night at {venue}.",
                "{S} learned the solo from Hotel California note for note.",
                "{S} bought a capo and a tuner at the music shop on {street}.",
            ),
        },
    ),
)


@dataclass(frozen=True)
class KeyedCategory:
    """A keyed fact: one value for one (subject, relation); every turn states it in ``frame``."""

    name: str
    subject_kind: str  # "service" | "package" | "person" | "repo"
    frames: tuple[str, ...]  # "{x}" = subject, "{v}" = value; one frame per instance
    question: str
    values: tuple[str, ...]


SERVICES = (
    "payments",
    "auth",
    "search",
    "billing",
    "notifications",
    "inventory",
    "checkout",
    "reporting",
    "gateway",
    "shipping",
    "profile",
    "ledger",
)
PACKAGES = (
    "fastapi",
    "django",
    "numpy",
    "pandas",
    "requests",
    "sqlalchemy",
    "pydantic",
    "celery",
    "httpx",
    "boto3",
)
KEYED_PEOPLE = (
    "Maria Lopez",
    "Ken Adams",
    "Ruth Okafor",
    "Paul Meyer",
    "Lena Schultz",
    "Tariq Aziz",
    "Chloe Martin",
    "Ivo Petrov",
)
REPOS = ("webapp", "infra", "mobile-client", "data-pipeline", "docs-site", "ml-models")

KEYED: tuple[KeyedCategory, ...] = (
    KeyedCategory(
        "port",
        "service",
        (
            "The {x} service runs on port {v}.",
            "The {x} service listens on port {v}.",
            "The port of the {x} service is {v}.",
        ),
        "Which port does the {x} service run on?",
        ("8000", "8080", "8443", "9000", "5000", "3000", "8081", "9090", "7000"),
    ),
    KeyedCategory(
        "version",
        "package",
        ("We pin {x} at {v}.", "{x} is pinned at {v}.", "{x}=={v}"),
        "Which version of {x} do we pin?",
        ("0.95.2", "0.110.0", "1.4.2", "1.5.0", "2.0.1", "2.1.3", "3.2.1", "4.0.0", "4.2.7"),
    ),
    KeyedCategory(
        "base path",
        "service",
        (
            "The API base path for the {x} service is {v}.",
            "The {x} service's API base path is {v}.",
        ),
        "What is the API base path of the {x} service?",
        ("/api/v1", "/api/v2", "/api/v3", "/v1", "/v2", "/rest/v1", "/api/beta"),
    ),
    KeyedCategory(
        "timeout",
        "service",
        (
            "The request timeout of the {x} service is set to {v} seconds.",
            "The {x} service's request timeout is set to {v} seconds.",
        ),
        "What is the request timeout of the {x} service?",
        ("15", "30", "45", "60", "90", "120", "300"),
    ),
    KeyedCategory(
        "database",
        "service",
        ("The {x} service's database is called {v}.", "The database of the {x} service is {v}."),
        "What is the {x} service's database called?",
        ("orders_prod", "core_main", "primary_db", "app_store", "ledger_v", "main_rw", "pg_east"),
    ),
    KeyedCategory(
        "region",
        "service",
        ("The {x} service is hosted in {v}.", "The region of the {x} service is {v}."),
        "Where is the {x} service hosted?",
        ("eu-west-1", "eu-central-1", "us-east-1", "us-east-2", "us-west-2", "ap-southeast-1"),
    ),
    KeyedCategory(
        "replicas",
        "service",
        (
            "The replica count of the {x} service is set to {v}.",
            "The {x} service's replica count is {v}.",
        ),
        "How many replicas does the {x} service run?",
        ("2", "3", "4", "6", "8", "12"),
    ),
    KeyedCategory(
        "log level",
        "service",
        (
            "The log level of the {x} service is set to {v}.",
            "The {x} service's log level is {v}.",
        ),
        "What log level does the {x} service use?",
        ("DEBUG", "INFO", "WARNING", "ERROR"),
    ),
    KeyedCategory(
        "queue",
        "service",
        ("The {x} worker uses the {v} queue.",),
        "Which queue does the {x} worker use?",
        ("high", "default", "bulk", "priority", "batch", "realtime"),
    ),
    KeyedCategory(
        "branch",
        "repo",
        (
            "The default branch of the {x} repository is named {v}.",
            "The {x} repository's default branch is {v}.",
        ),
        "What is the default branch of the {x} repository?",
        ("main", "master", "trunk", "develop", "release"),
    ),
    KeyedCategory(
        "licence",
        "package",
        ("{x} is licensed under {v}.", "The licence of {x} is {v}."),
        "Which licence is {x} released under?",
        ("MIT", "BSD-3-Clause", "Apache-2.0", "MPL-2.0", "LGPL-3.0"),
    ),
    KeyedCategory(
        "maintainer team",
        "package",
        ("The {x} dependency is maintained by the {v} team.",),
        "Which team maintains the {x} dependency?",
        ("platform", "data", "payments", "infra", "security", "web"),
    ),
    KeyedCategory(
        "ci system",
        "repo",
        ("The CI system of the {x} repository is {v}.", "The {x} repository's CI system is {v}."),
        "Which CI system does the {x} repository use?",
        ("GitHub Actions", "Jenkins", "CircleCI", "Buildkite", "GitLab CI"),
    ),
    KeyedCategory(
        "repo owner",
        "repo",
        ("The {x} repository is owned by the {v} team.",),
        "Which team owns the {x} repository?",
        ("platform", "data", "mobile", "infra", "growth", "web"),
    ),
    KeyedCategory(
        "reports to",
        "person",
        ("{x} reports to {v}.",),
        "Who does {x} report to?",
        ("Dana Whitfield", "Lee Park", "Marta Costa", "Kofi Mensah", "Ravi Iyer", "Greta Lind"),
    ),
    KeyedCategory(
        "employer",
        "person",
        ("{x} works at {v}.", "{x} works for {v}."),
        "Where does {x} work?",
        ("Acme", "Northwind", "Globex", "Initech", "Umbrella Logistics", "Vandelay"),
    ),
    KeyedCategory(
        "home city",
        "person",
        ("{x} lives in {v}.",),
        "Which city does {x} live in?",
        ("Lisbon", "Berlin", "Toronto", "Madrid", "Oslo", "Dublin", "Vienna"),
    ),
)

KEYED_SUBJECTS: dict[str, tuple[str, ...]] = {
    "service": SERVICES,
    "package": PACKAGES,
    "person": KEYED_PEOPLE,
    "repo": REPOS,
}

# Everyday memory with no bearing on any attribute above (no food, no health, no commute).
GENERIC_DISTRACTORS: tuple[str, ...] = (
    "The team lunch is booked at {restaurant} for {day}.",
    "{friend} recommended a podcast about {topic}.",
    "The printer on the third floor jammed during the board meeting.",
    "Booked flights to {town} for {friend}'s wedding in {month}.",
    "The quarterly all-hands is on {day} in the main auditorium.",
    "The fire alarm test is scheduled for {day} at eleven.",
    "The coffee machine on the second floor is out of order.",
    "{friend} won the office quiz with a question about {topic}.",
    "Watched a documentary about {topic} on {day}.",
    "The dentist appointment is at half past four on {day}.",
    "The book club is reading {book} for {month}.",
    "Bought a birthday card for {friend} at the shop on {street}.",
    "The lifts in the building are being serviced on {day}.",
    "{friend} shared photos from the trip to {town}.",
    "The parcel from the bookshop arrived on {day}.",
    "Renewed the passport at the post office on {street}.",
    "Sent {friend} the slides for the {team} review.",
    "The library on {street} opens late on {day}s.",
    "{friend} asked for a recommendation for a novel like {book}.",
    "The plumber is coming on {day} to look at the boiler.",
    "Lent {friend} a copy of {book}.",
    "The museum has an exhibition on {topic} until {month}.",
    "The car insurance renewal is due in {month}.",
    "{friend} is organising a quiz night at {venue} on {day}.",
    "The wifi at {building} dropped out twice during the call.",
    "Picked up the dry cleaning on {street}.",
    "{friend} found a great article on {topic}.",
    "The neighbours are having the roof repaired on {day}.",
)
