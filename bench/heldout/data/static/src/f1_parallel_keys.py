from common import I
F = "parallel_keys"

I(F, "What port does the production database listen on?", [
 "Quick note for later: our staging Postgres listens on 5440 because someone else grabbed the default on that box years ago.",
 "Production Postgres is on the standard 5432, nothing clever there.",
 "The analytics replica sits on 6432 behind pgbouncer, in case the BI folks ask again.",
 "Heads up, after the migration to the new cluster tonight prod Postgres moved to 5433 so it can run side by side with the old instance during cutover. Staging is untouched.",
 "Reminder to self: staging still uses 5440, I checked the compose file this morning.",
], cur=[4], cv="5433", stale=[2], sv=["5432"])

I(F, "Which school does my daughter Priya go to?", [
 "My son Arjun just started at Maple Ridge Elementary, he's in second grade.",
 "Priya goes to Hollins Middle School, she's in seventh now and loving the robotics club.",
 "Arjun's teacher at Maple Ridge is Mrs. Okafor, super warm person.",
 "We're carpooling with the Tans for Priya's school since Hollins is across town.",
 "Arjun lost another water bottle at school. Third one this term.",
], cur=[2], cv="Hollins Middle School")

I(F, "Who owns the billing-api service?", [
 "Service ownership, as of today: billing-api belongs to the Payments team, point of contact is Dana Whitfield.",
 "notifications-worker is owned by Growth; Marcus Lee is on point for it.",
 "search-indexer falls under Platform, and honestly nobody wants it. Current owner on paper is Ilse Brandt.",
 "Marcus asked whether Payments could take notifications-worker off Growth's hands. Answer was no, Growth keeps it.",
 "Dana reminded everyone in standup that billing-api pages go to Payments, not to Platform.",
 "Updated the service catalog; all three entries checked and correct.",
], cur=[1, 5], cv="Dana Whitfield")

I(F, "What's the address of our Lisbon office?", [
 "The Berlin office is at Torstraße 140, third floor, buzz for 'Kestrel'.",
 "Lisbon team works out of Rua do Alecrim 26, right by Cais do Sodré.",
 "Madrid folks are in a coworking space on Calle de Fuencarral, no fixed desk.",
 "We finally moved the Lisbon team: as of this month they're at Avenida da Liberdade 110, much bigger space.",
 "Berlin asked for more meeting rooms, facilities said maybe next year.",
], cur=[4], cv="Avenida da Liberdade 110", stale=[2], sv=["Rua do Alecrim 26"])

I(F, "How often do I water the fiddle leaf fig?", [
 "Plant care: the monstera gets water every 7 days, more in summer.",
 "Fiddle leaf fig by the window: every 10 days, and only when the top inch is dry.",
 "The snake plant basically never needs anything. Once a month is plenty.",
 "Repotted the monstera into a bigger terracotta pot today.",
 "Fig dropped one leaf but the schedule's the same, every 10 days.",
 "Bought a moisture meter so I stop guessing with the snake plant.",
], cur=[2, 5], cv="every 10 days")

I(F, "What's the memory limit on the staging worker pods?", [
 "k8s resources: prod worker pods have a 4Gi memory limit and 2 CPU.",
 "Staging worker pods are capped at 1Gi, which is why the big import jobs OOM there sometimes.",
 "The API pods in both envs are at 512Mi, they're tiny.",
 "We bumped prod workers to 6Gi after last week's incident with the PDF renderer.",
 "Someone asked about raising staging too, but we decided to leave it at 1Gi to keep costs down.",
], cur=[2, 5], cv="1Gi", stale=[1], sv=["4Gi"])

I(F, "When is my mom's birthday?", [
 "Dad's birthday is March 3rd, he'll want the usual steak dinner.",
 "Mom's is on October 19.",
 "My sister Leah's birthday is the 2nd of June, same week as her anniversary.",
 "Booked the steakhouse for Dad again, table for five.",
 "Need to order Mom's gift early this year, October 19 always sneaks up on me.",
], cur=[2, 5], cv="October 19")

I(F, "Which region is the EU bucket in?", [
 "S3 layout: the US uploads bucket lives in us-east-1.",
 "The EU uploads bucket is in eu-west-1, Ireland.",
 "APAC uploads go to ap-southeast-2 in Sydney.",
 "Legal wanted EU data in Germany, so we recreated the EU uploads bucket in eu-central-1 and deleted the old one.",
 "US bucket lifecycle rule: move to Glacier after 90 days.",
 "APAC bucket got versioning turned on today.",
], cur=[4], cv="eu-central-1", stale=[2], sv=["eu-west-1"])

I(F, "What's the name of Tom's vet?", [
 "Our cat Tom sees Dr. Halvorsen at the Brookside Animal Clinic.",
 "The dog, Biscuit, goes to a different place, Greenway Vets, because they do hydrotherapy.",
 "Tom had his annual checkup with Dr. Halvorsen, all good, slightly overweight.",
 "Biscuit's hydro sessions are Tuesdays at Greenway.",
], cur=[1, 3], cv="Dr. Halvorsen")

I(F, "What time does the Seattle team's standup start?", [
 "Standups: London team does 9:30 their time.",
 "Seattle does 10:00 Pacific, it's early for them but it overlaps with London's afternoon.",
 "The Bangalore team has theirs at 11:00 IST.",
 "London folks floated moving theirs later because of the school run, but in the end everyone voted to keep it where it is.",
 "Seattle's is unchanged, still 10:00 Pacific.",
], cur=[2, 5], cv="10:00 Pacific", stale=[], sv=[])

I(F, "What's the Wi-Fi password at the cabin?", [
 "Home Wi-Fi password is 'tangerine-otter-88'.",
 "The cabin router password is 'pinecone42', written on the fridge too.",
 "Guest network at home: 'welcomefriends'.",
 "Set up a separate IoT network at home for the smart plugs, password 'plugs-and-bulbs'.",
 "Cabin's the same as always, didn't touch it.",
], cur=[2], cv="pinecone42")

I(F, "Who is the on-call lead for the mobile team?", [
 "Mobile team on-call lead is Rosa Jimenez this quarter.",
 "Web team on-call lead is Kenji Watanabe.",
 "Data team's on-call is handled by a rotation, no single lead; Abby coordinates it.",
 "Kenji ran the web team's game day this month, went smoothly.",
 "Rosa did a great postmortem on the push-notification outage.",
], cur=[1], cv="Rosa Jimenez")

I(F, "What's my car's license plate?", [
 "My car's plate is 7KXM214.",
 "My wife's car is ELN 508, the blue Subaru.",
 "Renewed registration on my car, plate stays 7KXM214.",
 "Her Subaru needs new tires before winter.",
], cur=[1, 3], cv="7KXM214")

I(F, "How many replicas does the checkout service run in production?", [
 "Checkout in prod runs 6 replicas.",
 "Checkout in staging has 2 replicas.",
 "Cart service in prod: 4 replicas.",
 "Black Friday prep: permanently raised checkout prod to 10 replicas, the HPA floor is now 10.",
 "Cart stays at 4, it's barely loaded.",
 "Staging checkout is still 2, no reason to change.",
], cur=[4], cv="10 replicas", stale=[1], sv=["6 replicas"])

I(F, "What's Grandpa's phone number?", [
 "Grandma's cell: 555-0142. She only answers after 10am.",
 "Grandpa doesn't do cell phones, his landline is 555-0199.",
 "Uncle Ray's number is 555-0177, he's the one to call if something happens at their place.",
 "Grandma got a new phone but kept the same number.",
], cur=[2], cv="555-0199")

I(F, "What's the timeout on the payments gateway client?", [
 "HTTP client timeouts: payments gateway client is 8 seconds.",
 "The geocoding client uses 2 seconds, we'd rather fail fast there.",
 "Email provider client: 15 seconds because their API is slow on bulk sends.",
 "Added retries with jitter to the geocoding client; its timeout itself is untouched.",
 "Reviewed all client configs; payments gateway still at 8 seconds and that's fine.",
], cur=[1, 5], cv="8 seconds")

I(F, "Where does my brother Sam live now?", [
 "My brother Sam lives in Portland, near Laurelhurst Park.",
 "My cousin Nadia is in Austin, she moved there for the tech job.",
 "Sam finally bought a place — he's living in Tacoma now, closed on the house last month.",
 "Nadia says Austin summers are brutal but she's staying.",
 "Visiting Sam at the new house in Tacoma next weekend.",
], cur=[3, 5], cv="Tacoma", stale=[1], sv=["Portland"])

I(F, "What's the default branch of the infra repo?", [
 "The app repo's default branch is 'main'.",
 "The infra repo still uses 'master' as default, nobody's migrated it.",
 "Docs repo default branch is 'gh-pages' since it's just the site.",
 "PR checks on the app repo require two approvals on main.",
 "Someone proposed renaming infra's default branch, got deprioritized. It's still master.",
], cur=[2, 5], cv="master")

I(F, "What size shoes does Lily wear?", [
 "Shoe sizes for shopping: Lily is a kids' 13.",
 "Noah wears a youth 2.",
 "My own running shoes are a women's 8.5.",
 "Lily's feet grew again, she's a kids' 1 now, the 13s pinch.",
 "Noah is still a youth 2, thank goodness.",
], cur=[4], cv="kids' 1", stale=[1], sv=["kids' 13"])

I(F, "Which DNS provider handles example-shop.com?", [
 "DNS: example-shop.com zone is on Cloudflare.",
 "Our internal domain corp.example.net is on Route 53.",
 "The marketing microsite promo.example.org is managed at Namecheap, it's a leftover.",
 "Added a CNAME for status.example-shop.com in Cloudflare today.",
 "Route 53 bill was higher than expected, mostly health checks.",
], cur=[1, 4], cv="Cloudflare")

I(F, "What's the gate code for my sister's building?", [
 "Gate code at Mom's building is 4471#.",
 "Sister's apartment complex gate: 9023*.",
 "The storage unit padlock combo is 18-34-07.",
 "Mom's building package room opens with the same 4471# code, handy.",
 "Went to my sister's place yesterday, 9023* still works.",
], cur=[2, 5], cv="9023*")

I(F, "What Python version does the ML pipeline use?", [
 "The web backend runs on Python 3.11.",
 "The ML training pipeline is pinned to Python 3.9 because of an old CUDA toolkit dependency.",
 "CLI tools repo targets Python 3.8 and up for compatibility.",
 "We upgraded the ML pipeline to Python 3.10 once the CUDA wheels caught up.",
 "Backend is still on 3.11, no plans to move to 3.12 this quarter.",
], cur=[4], cv="Python 3.10", stale=[2], sv=["Python 3.9"])

I(F, "What's my son's soccer practice schedule?", [
 "Ethan's soccer practice is Tuesdays and Thursdays, 5:30 to 7.",
 "Mia's swim practice is Monday, Wednesday, Friday mornings at 6. Brutal.",
 "Ethan's coach sent the spring schedule, same Tuesdays and Thursdays.",
 "Mia might add Saturday swim, not decided yet.",
 "Bought Ethan new shin guards for practice.",
], cur=[1, 3], cv="Tuesdays and Thursdays")

I(F, "Who is the landlord for the Elm Street unit?", [
 "Rental notes: landlord for the Elm Street apartment is Mr. Petrakis.",
 "The garage we rent on Birch Lane is owned by Helen Cho.",
 "Petrakis fixed the dishwasher at Elm Street within two days, nice.",
 "Helen raised the garage rent by 20 dollars starting January.",
], cur=[1, 3], cv="Petrakis")

I(F, "What's the SLA for the internal search API?", [
 "Public API SLA: 99.95% monthly.",
 "Internal search API: 99.5%, it's best effort.",
 "Partner webhooks SLA is 99.9%.",
 "Partner webhooks have beaten their 99.9% target every month this year.",
 "Internal search stays at 99.5%; nobody's asked for more.",
], cur=[2, 5], cv="99.5%")

I(F, "What gym does Carla go to?", [
 "My partner Carla goes to Ironworks Gym on 5th.",
 "I do climbing at Boulder Barn instead, don't really lift.",
 "Carla's membership at Ironworks renewed automatically.",
 "Thinking of switching from Boulder Barn to the new place downtown, haven't yet.",
], cur=[1, 3], cv="Ironworks Gym")

I(F, "Which Slack channel gets the database alerts?", [
 "Alert routing: database alerts go to #db-alerts.",
 "Frontend error alerts go to #fe-errors.",
 "Billing anomalies post into #finance-ops.",
 "#fe-errors was too noisy, so we turned on sampling for it; channel stays the same.",
 "Database alerts unchanged, still #db-alerts, DBA team watches it.",
], cur=[1, 5], cv="#db-alerts")

I(F, "What's the rent on the Denver apartment?", [
 "Denver apartment rent: $1,650 a month.",
 "The Boulder studio I sublet is $1,200.",
 "Denver lease renewed with an increase — rent is now $1,790 a month from August.",
 "Boulder subletter paid on time again.",
 "Boulder is staying at $1,200, the owner didn't raise it.",
], cur=[3], cv="$1,790", stale=[1], sv=["$1,650"])

I(F, "Which cloud account hosts the staging environment?", [
 "AWS accounts: production lives in account 'acme-prod' (1111-2222-3333).",
 "Staging is in 'acme-stage' (4444-5555-6666).",
 "Sandbox for experiments: 'acme-sandbox', wiped monthly.",
 "Enabled GuardDuty in acme-prod.",
 "acme-sandbox got wiped on the 1st as usual.",
 "Confirmed with finance: acme-stage is still where staging runs, costs are tagged correctly.",
], cur=[2, 6], cv="acme-stage")

I(F, "What's my husband's blood type?", [
 "For emergencies: I'm O negative.",
 "Dave is A positive.",
 "Our daughter tested B positive at her last checkup.",
 "Donated blood again, O negative is always in demand.",
], cur=[2], cv="A positive")

I(F, "What's the cron schedule for the nightly backup job?", [
 "Nightly DB backup runs at 02:00 UTC ('0 2 * * *').",
 "Log rotation is hourly, '0 * * * *'.",
 "Weekly report job runs Mondays at 06:00 UTC.",
 "Backup was colliding with the ETL, moved nightly backup to 03:30 UTC ('30 3 * * *').",
 "Log rotation is still hourly.",
], cur=[4], cv="30 3 * * *", stale=[1], sv=["0 2 * * *"])

I(F, "What's Jasmine's favorite color?", [
 "Jasmine's favorite color is teal, she says it's not blue and not green.",
 "Oscar insists his favorite color is 'orange like a traffic cone'.",
 "Got Jasmine a teal backpack for school.",
 "Oscar painted his whole Lego shelf orange.",
], cur=[1, 3], cv="teal")

I(F, "Which airline am I flying to Tokyo?", [
 "Trip booking: outbound to Tokyo on ANA, NH 107.",
 "The flight from Tokyo to Seoul is on Korean Air.",
 "Return from Seoul home is United.",
 "Seat upgraded on the Korean Air leg, nice.",
 "ANA sent the check-in reminder for the Tokyo flight.",
], cur=[1, 5], cv="ANA")

I(F, "What Node version does the frontend use?", [
 "Frontend builds with Node 18.",
 "The serverless functions are on Node 16 runtime because Lambda hadn't offered 18 when we set them up.",
 "Storybook uses whatever the frontend uses.",
 "Migrated the serverless functions to Node 20 runtime finally.",
 "Frontend is still on Node 18; upgrade is scheduled for next quarter.",
], cur=[1, 5], cv="Node 18", stale=[2], sv=["Node 16"])

I(F, "How much do I pay for the climbing gym membership?", [
 "Budget: climbing gym membership is $85 a month.",
 "Streaming subscriptions add up to about $40 a month total.",
 "Phone plan is $55 with the family discount.",
 "Phone plan includes free roaming in Canada, which helped on the Montreal trip.",
 "Climbing gym billed $85 again, same as always.",
], cur=[1, 5], cv="$85")

I(F, "What's the hostname of the staging Redis?", [
 "Redis hosts: production is redis-prod.internal.acme.io.",
 "Staging Redis is redis-stg-01.internal.acme.io.",
 "Dev uses a local Redis in docker, no hostname.",
 "Replaced the staging Redis box; the new hostname is redis-stg-02.internal.acme.io and 01 is decommissioned.",
 "Prod Redis is unchanged.",
], cur=[4], cv="redis-stg-02.internal.acme.io", stale=[2], sv=["redis-stg-01.internal.acme.io"])

I(F, "Who teaches my daughter's piano lessons?", [
 "Zoe's piano teacher is Mr. Albrecht, Thursdays at 4.",
 "Leo takes guitar with a guy named Chris at the music shop.",
 "Zoe's recital with Mr. Albrecht is in May.",
 "Leo's guitar lessons with Chris moved to the quieter back room of the music shop.",
], cur=[1, 3], cv="Mr. Albrecht")

I(F, "What's the coffee order for Maria?", [
 "Office coffee run orders: Maria takes an oat flat white.",
 "Jonas wants a double espresso, no sugar.",
 "Priyanka usually gets a chai latte.",
 "Jonas also wants a glass of water on the side with his espresso, every single time.",
 "Maria confirmed: oat flat white, always.",
], cur=[1, 5], cv="oat flat white")

I(F, "What's the max upload size on the public API?", [
 "Public API max upload size: 25 MB.",
 "Internal admin API allows up to 200 MB uploads.",
 "Customers complained, so we raised the public API limit to 50 MB.",
 "Admin API limit unchanged.",
 "Updated the docs page for the public API upload size.",
], cur=[3], cv="50 MB", stale=[1], sv=["25 MB"])

I(F, "Which vendor supplies the Austin warehouse's packaging?", [
 "Supplier list: the Reno warehouse buys its boxes and tape from PackRight.",
 "Austin warehouse gets packaging from Lone Star Corrugated, they deliver every Monday.",
 "Pallets for both sites come from a local guy, Hector's Pallets.",
 "Reno renegotiated with PackRight and got 8% off for a two-year commitment.",
 "Austin dropped Lone Star after repeated late deliveries; packaging there now comes from Uline.",
 "Hector raised pallet prices a bit but we're sticking with him.",
], cur=[5], cv="Uline", stale=[2], sv=["Lone Star Corrugated"])
