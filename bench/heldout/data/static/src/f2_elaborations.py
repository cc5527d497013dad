from common import I
F = "elaborations"

I(F, "Which ear does Rex have a scar on?", [
 "My dog Rex is a beagle, about four years old.",
 "Rex has a scar on his left ear from a scuffle at the dog park before we adopted him.",
 "He's terrified of thunder — we keep a crate with a blanket over it for storm nights.",
 "Rex is also weirdly obsessed with tennis balls but only the yellow ones.",
 "The vet says Rex's weight is perfect, 22 pounds.",
], cur=[2], cv="left ear")

I(F, "What database does the ledger service use?", [
 "The ledger service is a Go app that records every money movement in the system.",
 "Ledger writes to CockroachDB, chosen mostly for the multi-region story.",
 "It exposes a gRPC API on port 7070; REST goes through the gateway.",
 "Ledger entries are append-only; corrections are posted as reversing entries.",
 "There's a nightly reconciliation job that compares ledger totals against the bank statements.",
 "Ledger's dashboards live in the Grafana folder 'Money / Ledger'.",
], cur=[2], cv="CockroachDB")

I(F, "What kind of wood is my grandfather's desk made from?", [
 "I inherited my grandfather's writing desk when we cleared out his house.",
 "Turns out it's solid walnut, the restorer was impressed.",
 "There's a hidden drawer under the top where he kept old train tickets.",
 "The brass handles are original, from around 1950.",
 "It's in the study now, facing the window like he had it.",
], cur=[2], cv="walnut")

I(F, "How many floors does my aunt's house have?", [
 "My Aunt Delphine lives in an old stone house outside Lyon.",
 "It has three floors, and the top one is basically her painting studio.",
 "The garden has a fig tree she planted the year my cousin was born.",
 "There's a cellar too, full of her husband's wine, but she doesn't count it as a floor.",
 "The kitchen still has the original blue tiles.",
], cur=[2], cv="three floors")

I(F, "What's my bike's frame size?", [
 "Got a new road bike, a Canyon Endurace.",
 "Frame size is medium, fits me well at 178 cm.",
 "It has Shimano 105 Di2, which I'm still getting used to.",
 "Put 32mm tires on it for the gravel-ish roads around here.",
 "Added a Wahoo mount and a rear light that auto-turns on.",
], cur=[2], cv="medium")

I(F, "Who maintains the feature-flag library?", [
 "We use an internal feature-flag library called 'toggles'.",
 "toggles is maintained by Eun-ji Park on the platform team.",
 "It's backed by a Redis cache with a 30-second refresh interval.",
 "Flags can target by tenant, user, or percentage rollout.",
 "There's a CLI, togglectl, for flipping flags without the UI.",
 "Eun-ji wrote a long doc on flag hygiene and cleanup, linked from the README.",
], cur=[2, 6], cv="Eun-ji Park")

I(F, "What's my cat Juniper's breed?", [
 "We adopted a cat, Juniper! She's two.",
 "Juniper's a Russian Blue mix according to the shelter.",
 "She has a little white patch under her chin, the only non-grey spot.",
 "She hides under the bed when the vacuum comes out.",
 "Juniper learned to open the pantry door. We need a latch.",
], cur=[2], cv="Russian Blue")

I(F, "What's the capacity of the main conference room at the Dublin office?", [
 "Dublin office: main conference room is called 'Liffey'.",
 "Liffey seats 14 people around the table, more if you stand.",
 "It has a Zoom Rooms setup with two screens.",
 "The whiteboard wall is glass and the markers are always dead.",
 "Liffey needs booking at least a day ahead, it's popular.",
], cur=[2], cv="14 people")

I(F, "When did I start learning the cello?", [
 "I started learning cello in September 2021, at 34, which felt brave.",
 "My teacher is Ingrid, she's patient with my terrible bow hold.",
 "My cello is a rental from Sorensen Strings, a 4/4 student model.",
 "Practicing 30 minutes a day most days.",
 "Ingrid thinks I can try the Bach prelude by next spring.",
 "Joined a community orchestra's beginner section.",
], cur=[1], cv="September 2021")

I(F, "What language is the invoice-renderer written in?", [
 "invoice-renderer turns invoice JSON into PDFs.",
 "It's written in Kotlin and runs on the JVM.",
 "Uses a headless Chromium under the hood for the HTML-to-PDF step.",
 "Templates are Handlebars files stored in the templates/ folder.",
 "Typical render time is around 400ms per invoice.",
], cur=[2], cv="Kotlin")

I(F, "What allergy does my nephew Felix have?", [
 "My nephew Felix is staying with us for the summer.",
 "Felix is seven and obsessed with dinosaurs.",
 "Important: Felix is allergic to tree nuts, carries an EpiPen in his backpack.",
 "He goes to bed around 8:30, reads first.",
 "He likes pancakes but only with maple syrup, no fruit.",
], cur=[3], cv="tree nuts")

I(F, "What year was our house built?", [
 "Our house is a craftsman bungalow in the old part of town.",
 "It was built in 1924, according to the county records.",
 "The front porch was enclosed in the 70s, we'd love to open it back up.",
 "The original fir floors are under the carpet in the bedrooms.",
 "There's a clawfoot tub upstairs that's apparently original too.",
 "Roof was replaced in 2015, so we're good there.",
], cur=[2], cv="1924")

I(F, "What's the retention period for logs in the observability stack?", [
 "Our observability stack: Loki for logs, Prometheus for metrics, Tempo for traces.",
 "Loki keeps logs for 30 days, then they're gone.",
 "Prometheus is scraped every 15 seconds and long-term metrics go to Thanos.",
 "Traces in Tempo are sampled at 10% except for errors, which are always kept.",
 "Grafana is the front end for all three.",
], cur=[2], cv="30 days")

I(F, "What's my horse's name?", [
 "I've been leasing a horse at Willow Creek stables.",
 "Her name is Clementine, a chestnut mare.",
 "Clementine is 15 and very calm, good for a returning rider like me.",
 "She hates having her ears touched, so bridling takes patience.",
 "We cantered for the first time last week!",
], cur=[2], cv="Clementine")

I(F, "How long is the Camino route I'm planning?", [
 "I'm planning to walk the Camino Portugués next spring.",
 "Starting in Porto, the coastal route, roughly 280 km to Santiago.",
 "Budgeting about 14 days of walking plus two rest days.",
 "Booked the first two nights in albergues in Vila do Conde and Esposende.",
 "Going with my friend Tereza, who's done the Francés before.",
], cur=[2], cv="280 km")

I(F, "Which queue does the email worker consume from?", [
 "The email worker sends all transactional mail.",
 "It consumes from the RabbitMQ queue 'mail.outbound'.",
 "Retries with exponential backoff, max 5 attempts.",
 "Dead letters land in 'mail.outbound.dlq' and someone looks weekly.",
 "Provider is Postmark; API key is in Vault under secret/email/postmark.",
], cur=[2], cv="mail.outbound")

I(F, "What instrument does my dad play?", [
 "My dad retired last year and finally has time for music.",
 "He plays the trombone, was in a jazz band in college.",
 "Now he plays with a Tuesday night big band at the community center.",
 "He's working on his high notes, says his lips aren't what they used to be.",
], cur=[2], cv="trombone")

I(F, "What's the capacity of our rain barrel?", [
 "Installed a rain barrel by the garage downspout.",
 "It holds 50 gallons, which fills after one decent storm.",
 "Has a spigot at the bottom and an overflow hose going to the flower bed.",
 "Added a mesh screen on top to keep mosquitoes out.",
 "Using it mostly for the tomatoes.",
], cur=[2], cv="50 gallons")

I(F, "What license does our open-source SDK use?", [
 "We open-sourced the Python SDK for our API.",
 "It's Apache 2.0 licensed.",
 "Published on PyPI as acme-client.",
 "Supports Python 3.8 through 3.12, tested in CI on all of them.",
 "Contributions require signing a CLA via the bot.",
 "Docs are built with mkdocs-material and hosted on Read the Docs.",
], cur=[2], cv="Apache 2.0")

I(F, "How old is my friend Bea's daughter?", [
 "My college friend Bea has a daughter, Rosalind.",
 "Rosalind turned five in April.",
 "She's into ballet and insists on wearing the tutu to the grocery store.",
 "Bea says Rosalind starts kindergarten in the fall.",
], cur=[2], cv="five")

I(F, "What brand is the espresso machine?", [
 "We bought an espresso machine for the kitchen.",
 "It's a Rancilio Silvia, secondhand but in great shape.",
 "Paired it with a Eureka Mignon grinder.",
 "Takes about 20 minutes to warm up properly, so I turn it on first thing.",
 "Descaled it for the first time, way easier than I expected.",
], cur=[2], cv="Rancilio Silvia")

I(F, "What's the partition key of the events table?", [
 "The events table in our data warehouse stores raw product events.",
 "It's partitioned by event_date, daily partitions.",
 "Clustered on user_id and event_name for faster lookups.",
 "Roughly 400 million rows a day these days.",
 "Partitions older than two years are exported to cold storage.",
], cur=[2], cv="event_date")

I(F, "Where did my wife and I get married?", [
 "Elena and I got married in June 2018.",
 "The ceremony was at a vineyard in Sonoma, Gundlach Bundschu.",
 "Her brother officiated, he got ordained online for it.",
 "It rained for ten minutes right before the vows and then cleared up.",
 "We still have a bottle of the wine from that day, saving it for our tenth.",
], cur=[2], cv="Sonoma")

I(F, "What's my tortoise's diet?", [
 "My tortoise Gus is a Hermann's tortoise, around 30 years old.",
 "Gus eats mostly dandelion greens, clover and plantain, with a bit of endive in winter.",
 "He hibernates from November to March in a box in the garage fridge, vet approved.",
 "His shell has a small chip on the back from before I had him.",
 "Gus loves basking on the patio stones in the afternoon.",
], cur=[2], cv="dandelion greens")

I(F, "What's the name of the on-prem cluster?", [
 "We run one on-prem Kubernetes cluster alongside the cloud ones.",
 "It's called 'basement', because it literally started in a basement.",
 "basement has 12 nodes, all bare-metal Dell R640s.",
 "It runs our GPU inference workloads and the internal Git server.",
 "Networking is Cilium; storage is Rook/Ceph.",
 "Power and cooling are in the colo now, not the basement anymore, but the name stuck.",
], cur=[2], cv="basement")

I(F, "What grade is my son Mateo in?", [
 "Mateo started third grade this year.",
 "His best friend is a kid named Otis from down the street.",
 "Mateo's reading well above grade level, his teacher says.",
 "He has a mild lisp and sees the speech therapist once a week at school.",
 "Mateo wants to be a marine biologist. Or a YouTuber. Depends on the day.",
], cur=[1], cv="third grade")

I(F, "Which theme does my blog use?", [
 "I started a blog about sourdough baking.",
 "It's on Hugo with the PaperMod theme.",
 "Hosted on Netlify, custom domain crumbandcrust.net.",
 "I post every other Sunday, usually with a recipe and a crumb shot.",
 "Added comments through Giscus so people don't need another account.",
], cur=[2], cv="PaperMod")

I(F, "What's the boat's hull length?", [
 "We bought a small sailboat! A 1978 Catalina.",
 "She's 22 feet, with a swing keel so we can trailer her.",
 "Named her 'Second Wind'.",
 "Main sail is original but the jib is newer.",
 "Slip at the marina is C-14.",
], cur=[2], cv="22 feet")

I(F, "Which encryption does the backup system use?", [
 "Backups are handled by restic.",
 "restic encrypts everything with AES-256 in counter mode before upload.",
 "Repository lives in a Backblaze B2 bucket.",
 "We prune with a policy of 7 daily, 4 weekly, 12 monthly snapshots.",
 "Restore drill done quarterly; last one took 40 minutes for the full DB.",
], cur=[2], cv="AES-256")

I(F, "What's my neighbor Mr. Okonkwo's profession?", [
 "Our new neighbor is Mr. Okonkwo, moved in next door in spring.",
 "He's a retired civil engineer who worked on bridges in Lagos and later in Houston.",
 "He grows incredible peppers in his backyard and shares them.",
 "He has two grandsons who visit on weekends and play basketball in the driveway.",
], cur=[2], cv="civil engineer")

I(F, "What's the model of my hearing aids?", [
 "Got hearing aids finally, after years of putting it off.",
 "They're Phonak Audéo Lumity, behind-the-ear with the small receiver.",
 "Rechargeable — the case charges them overnight.",
 "They connect to my phone over Bluetooth for calls, which is great.",
 "Audiologist is Dr. Kaplan, follow-up every six months.",
], cur=[2], cv="Phonak Audéo Lumity")

I(F, "How is the search service deployed?", [
 "Search service wraps our Elasticsearch cluster.",
 "It's deployed as a Helm chart into the 'search' namespace.",
 "The Elasticsearch cluster itself is 5 data nodes and 3 masters.",
 "Index aliases are swapped atomically on reindex.",
 "Synonyms file is in the repo under config/synonyms.txt.",
], cur=[2], cv="Helm chart")

I(F, "What's my grandmother's maiden name?", [
 "Working on family history this winter.",
 "My grandmother was born Anneliese Vogt in Bremen in 1931.",
 "She came to Canada in 1953 on the ship Arosa Sun.",
 "She married my grandfather in Winnipeg in 1955.",
 "Found her immigration card scanned in the national archives.",
], cur=[2], cv="Vogt")

I(F, "What's the car's tire pressure?", [
 "The new car is a 2022 Mazda CX-5.",
 "Recommended tire pressure is 36 psi front and rear.",
 "It's Soul Red, the color Mazda is famous for.",
 "We have winter tires on steel wheels in the garage.",
 "Next service is at 15,000 km.",
], cur=[2], cv="36 psi")

I(F, "Which framework is the admin dashboard built with?", [
 "The admin dashboard lives in the 'backoffice' repo.",
 "It's built with SvelteKit.",
 "Auth goes through our SSO; only staff accounts can log in.",
 "Tables use TanStack Table for sorting and filtering.",
 "Deployed to Vercel from main.",
 "Has an audit log page showing who changed what.",
], cur=[2], cv="SvelteKit")

I(F, "What breed are my chickens?", [
 "Started keeping chickens! Three hens.",
 "They're Buff Orpingtons, friendly and fluffy.",
 "Names: Dolly, Reba and Patsy.",
 "Coop is a converted garden shed with a run attached.",
 "Patsy is the boss and lays the biggest eggs.",
], cur=[2], cv="Buff Orpingtons")

I(F, "What's the penalty for early withdrawal from my CD?", [
 "Opened a 12-month CD at Harborview Credit Union.",
 "Rate is 4.75% APY.",
 "Early withdrawal penalty is 90 days of interest.",
 "It auto-renews unless I call them within 10 days of maturity.",
 "Put $10,000 in it.",
], cur=[3], cv="90 days of interest")

I(F, "What time zone is my client Hiroshi in?", [
 "New client: Hiroshi Nakamura, runs a small design studio.",
 "He's in Osaka, so JST, UTC+9.",
 "Prefers email over calls, and replies mostly in the morning his time.",
 "Project is a rebrand for his studio's website.",
 "He pays invoices via Wise in yen.",
], cur=[2], cv="JST")

I(F, "What's the GPU in my desktop?", [
 "Built a new desktop this winter.",
 "CPU is a Ryzen 7 7700X on an ASUS B650 board.",
 "GPU is an RTX 4070 Super.",
 "32 GB DDR5, 2 TB NVMe.",
 "Case is a Fractal North, looks great on the desk.",
 "Running Fedora on it, dual boot with Windows for a couple of games.",
], cur=[3], cv="RTX 4070 Super")

I(F, "What's the name of the hiking trail where I proposed?", [
 "I proposed to Aiko last October — she said yes!",
 "It was at the top of the Skyline Trail on Cape Breton, right at sunset.",
 "The ring is her grandmother's, reset in a new platinum band.",
 "A moose wandered past maybe fifty meters away right after, which felt like a blessing.",
 "We're thinking of getting married somewhere on the island too.",
], cur=[2], cv="Skyline Trail")
