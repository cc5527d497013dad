from common import I
F = "compatible_opposites"

I(F, "What kind of running do I enjoy?", [
 "I hate running on treadmills, it feels like being a hamster.",
 "Signed up for a 10k in the spring, mostly to have a goal.",
 "I love trail running though, especially the switchbacks up at Mount Tam.",
 "My knees are much happier on dirt than on pavement.",
 "Bought trail shoes with a rock plate, Hoka Speedgoats.",
], cur=[3], cv="trail running")

I(F, "Does the health endpoint require authentication?", [
 "Our API rejects all unauthenticated GET requests with a 401, no exceptions for resource routes.",
 "Tokens are JWTs issued by the auth service with a 15-minute TTL.",
 "The /healthz endpoint accepts unauthenticated requests so the load balancer can probe it.",
 "Rate limit is 100 requests per minute per token.",
 "/healthz only returns 'ok' and a build hash, nothing sensitive.",
], cur=[3], cv="accepts unauthenticated requests")

I(F, "Do I like cold weather?", [
 "I can't stand cold, damp weather. London in November is my nightmare.",
 "Honestly, I love dry cold — give me minus fifteen and sunshine in the Alps any day.",
 "My partner is the opposite, hates all cold.",
 "Booked a ski week in Val d'Isère for February.",
], cur=[1, 2], cv="dry cold")

I(F, "Can contractors push to the main branch?", [
 "Contractors cannot push directly to main; everything goes through PRs.",
 "Contractors do have write access to the repo so they can push feature branches.",
 "Main requires one approval from a full-time engineer.",
 "CI runs on every PR, including from contractor branches.",
 "We onboarded two new contractors from Brightline this week.",
], cur=[1], cv="cannot push directly to main")

I(F, "Does my son eat vegetables?", [
 "Oliver refuses to eat cooked vegetables. Broccoli at dinner is a war.",
 "Funny thing — he'll happily munch raw carrots and cucumber slices as a snack.",
 "He's also fine with peas if they're frozen, straight from the bag.",
 "Pediatrician said not to worry, he's growing fine.",
 "Tried roasting cauliflower with cheese, still a no.",
], cur=[1, 2, 3], cv="raw carrots")

I(F, "Is caching enabled on the product API?", [
 "CDN caching is disabled for the /cart and /checkout endpoints — they're per-user.",
 "The /products endpoint is cached at the CDN for 5 minutes.",
 "We purge the product cache on every catalog publish.",
 "Cart responses set Cache-Control: no-store.",
 "Product images are cached for a year with content-hashed URLs.",
], cur=[2], cv="5 minutes")

I(F, "Does my mother-in-law like dogs?", [
 "My mother-in-law Gloria is scared of big dogs, she had a bad experience as a kid.",
 "She adores small dogs though; she has a Yorkie named Peaches.",
 "When we visit we leave our Lab, Moose, with the neighbor.",
 "Gloria knits sweaters for Peaches, it's a whole thing.",
], cur=[1, 2], cv="small dogs")

I(F, "Do we allow remote work?", [
 "Company policy: no fully remote hires for the engineering team in Munich.",
 "Everyone, including Munich engineers, can work from home two days a week.",
 "Sales team is fully remote across Europe.",
 "In Munich people choose which three days they come into the office; most pick Tuesday to Thursday.",
 "We pay a home-office stipend of 500 euros once.",
], cur=[1, 2, 3], cv="two days a week")

I(F, "Do I drink coffee?", [
 "I don't drink coffee after 2pm, otherwise I can't sleep.",
 "Morning coffee is non-negotiable, two cups of pour-over.",
 "Switched to decaf for the occasional afternoon craving.",
 "My go-to beans are from Heart in Portland.",
], cur=[1, 2], cv="two cups of pour-over")

I(F, "Is the admin panel reachable from the internet?", [
 "The admin panel is not exposed to the public internet; it's only on the VPN.",
 "The customer-facing dashboard is public at app.example.com.",
 "Admin is served from the same codebase but on a different ingress.",
 "Office IPs are allowlisted on the VPN gateway.",
 "Pentest report confirmed admin isn't reachable externally.",
], cur=[1, 5], cv="only on the VPN")

I(F, "Am I a morning person?", [
 "I'm useless in the mornings for anything creative.",
 "But I love early morning swims — I'm at the pool at 6:15 most days.",
 "I do my best writing between 9pm and midnight.",
 "Swim club coach says my freestyle's getting smoother.",
], cur=[1, 2, 3], cv="6:15")

I(F, "Does the mobile app support offline mode?", [
 "The mobile app can't make payments offline.",
 "It does support offline mode for browsing saved items and the order history.",
 "Offline data is stored in SQLite and synced on reconnect.",
 "Push notifications need connectivity obviously.",
 "Offline mode was the top-requested feature last year.",
], cur=[2], cv="offline mode for browsing saved items")

I(F, "Does my daughter like swimming?", [
 "Hannah hates swimming lessons — the instructor is strict and the pool is freezing.",
 "She loves swimming in the lake at Grandpa's cabin though, can't get her out.",
 "We're looking for a warmer indoor pool for lessons.",
 "She learned to float on her back last summer.",
], cur=[1, 2], cv="the lake at Grandpa's cabin")

I(F, "Are public S3 buckets allowed?", [
 "Public S3 buckets are blocked by an SCP at the organization level.",
 "The static website bucket is the one exception: it's public via a CloudFront OAC, not a bucket policy, so the bucket itself stays private.",
 "Security Hub flags any bucket with public ACLs.",
 "Marketing assets are served through the same CloudFront distribution.",
 "Quarterly review of bucket policies is on the security calendar.",
], cur=[1, 2], cv="blocked by an SCP")

I(F, "Do I eat meat?", [
 "I don't eat red meat anymore, haven't in about five years.",
 "I still eat chicken and fish, mostly salmon.",
 "My doctor was happy with my cholesterol numbers last time.",
 "I make a mean miso-glazed salmon.",
 "Thanksgiving is turkey, which works fine for me.",
], cur=[1, 2], cv="chicken and fish")

I(F, "Can the reporting service write to the primary database?", [
 "The reporting service has read-only access to the primary database.",
 "It writes its own aggregates to a separate reporting schema on the analytics DB.",
 "DB credentials for reporting are rotated monthly by Vault.",
 "Heavy queries go to the read replica, not the primary.",
 "The grant on the primary is SELECT only, double-checked during the audit.",
], cur=[1, 5], cv="read-only")

I(F, "Do I like flying?", [
 "I hate long-haul flights, anything over eight hours makes me miserable.",
 "I love small planes though — took a discovery flight in a Cessna 172 and was hooked.",
 "Thinking about getting a private pilot license.",
 "For Sydney next year I'm breaking the trip up with a stop in Singapore.",
], cur=[1, 2], cv="small planes")

I(F, "Is the staging environment open to customers?", [
 "Staging is closed to customers, only staff and contractors can log in.",
 "The sandbox environment is open to customers for integration testing.",
 "Sandbox data gets reset every Sunday night.",
 "Staging mirrors prod config but with fake payment providers.",
 "Customers get sandbox API keys from the developer portal.",
], cur=[1, 2], cv="closed to customers")

I(F, "Does my husband like cooking?", [
 "Raj hates cooking on weeknights, he says it's a chore after work.",
 "On weekends he loves spending hours on a slow braise or homemade pasta.",
 "He got a pasta roller for his birthday.",
 "I handle the weeknight dinners, usually something quick.",
 "His short rib ragù is legendary among our friends.",
], cur=[1, 2], cv="weekends")

I(F, "Is the data encrypted?", [
 "Data in the analytics warehouse is not encrypted at the column level.",
 "The whole warehouse is encrypted at rest with KMS-managed keys.",
 "PII columns are tokenized before landing in the warehouse.",
 "Transport is TLS 1.2+ everywhere.",
], cur=[1, 2, 4], cv="encrypted at rest")

I(F, "Do I enjoy crowds?", [
 "Crowded bars drain me, I'm home by ten.",
 "Big music festivals are my happy place though — Glastonbury every year if I get tickets.",
 "I think it's the outdoor space that makes the difference.",
 "Got Glastonbury tickets again!",
], cur=[1, 2], cv="Glastonbury")

I(F, "Does the CLI send telemetry?", [
 "Our CLI does not send telemetry by default.",
 "Users can opt in to anonymous usage stats with `acme config set telemetry on`.",
 "Crash reports are also opt-in, separate flag.",
 "The opt-in rate is around 12%.",
 "Privacy page documents exactly which fields are sent.",
], cur=[1, 2], cv="does not send telemetry by default")

I(F, "Does my cat like being held?", [
 "Pickle absolutely refuses to be picked up, she'll wriggle free in two seconds.",
 "She loves lap time though, she'll climb onto me and sleep for an hour.",
 "She also likes being brushed, purrs the whole time.",
 "Vet visits are a nightmare because of the carrier.",
], cur=[1, 2], cv="refuses to be picked up")

I(F, "Are weekend deploys permitted?", [
 "No production deploys on Friday afternoons or weekends.",
 "Hotfixes for Sev1 incidents are allowed any time, including weekends, with the incident commander's sign-off.",
 "Staging deploys are fine whenever.",
 "Deploy freeze over the holidays from Dec 20 to Jan 3.",
 "The deploy bot enforces the weekend rule unless the hotfix label is set.",
], cur=[1, 2, 5], cv="Hotfixes for Sev1 incidents")

I(F, "Do I like spicy food?", [
 "I can't handle chili heat at all — a jalapeño wrecks me.",
 "I love spicy in the Sichuan peppercorn sense though, that numbing tingle is great.",
 "Wasabi and horseradish I'm fine with too, weirdly.",
 "Found a great Sichuan place on Clement Street.",
], cur=[1, 2, 3], cv="Sichuan peppercorn")

I(F, "Can I use personal laptops for work?", [
 "Personal laptops can't access the source code repos.",
 "Personal devices are fine for email and Slack through the managed apps.",
 "Company laptops are MacBook Pros with Kandji.",
 "Phones need the MDM profile for Slack, but it's light-touch.",
], cur=[1, 2], cv="can't access the source code repos")

I(F, "Does grandma like technology?", [
 "Grandma Ruth hates smartphones, she says they're rude.",
 "She loves her iPad though, video calls with the grandkids every Sunday.",
 "She also reads e-books on it with the font cranked up.",
 "Still has a landline and a rotary phone in the hall.",
], cur=[1, 2], cv="iPad")

I(F, "Are third-party cookies used on the site?", [
 "The marketing site uses no third-party cookies.",
 "We do set a first-party session cookie and a first-party analytics cookie via Plausible.",
 "Cookie banner only shows in the EU for the analytics opt-out.",
 "Ads team wanted a pixel, legal said no.",
], cur=[1], cv="no third-party cookies")

I(F, "Does my son like reading?", [
 "Caleb hates being made to read for homework, it's a battle.",
 "He devours comic books and graphic novels on his own, like Dog Man and Amulet.",
 "Library lets him take out ten at a time.",
 "His teacher suggested audiobooks for the assigned reading.",
], cur=[1, 2], cv="graphic novels")

I(F, "Is auto-scaling enabled for the worker fleet?", [
 "Auto-scaling is disabled for the GPU worker pool; it's fixed at 8 nodes because of reservation pricing.",
 "The CPU worker pool auto-scales between 4 and 40 nodes based on queue depth.",
 "The GPU reservation renews annually.",
 "Scaling events post to #infra-events.",
 "We tried scaling GPUs once and the cold start was too slow.",
], cur=[1, 2], cv="between 4 and 40 nodes")

I(F, "Do I like the beach?", [
 "I hate lying on the beach all day, I get bored and sunburnt.",
 "I love beach walks at sunrise and tide-pooling.",
 "Also love surfing, even though I'm bad at it.",
 "Booked a surf week in Ericeira.",
], cur=[1, 2, 3], cv="tide-pooling")

I(F, "Does the password policy require special characters?", [
 "Our password policy doesn't require special characters — we follow NIST guidance.",
 "Minimum length is 14 characters.",
 "Passwords are checked against a breached-password list and rejected if they appear.",
 "MFA is mandatory for all accounts.",
], cur=[1], cv="doesn't require special characters")

I(F, "Do I like working from cafés?", [
 "I can't focus in noisy cafés, the espresso machine noise kills me.",
 "Quiet cafés with library vibes are my favourite place to write, like Tandem on Fleet Street.",
 "Home office is fine but lonely.",
 "Got noise-cancelling headphones for the train.",
], cur=[1, 2], cv="Tandem on Fleet Street")

I(F, "Is the old v1 API still working?", [
 "The v1 API is deprecated; no new features will be added.",
 "v1 is still fully operational and supported until the end of 2025.",
 "About 15% of traffic still hits v1.",
 "We email v1 users quarterly about migrating.",
 "v2 has been GA for two years.",
], cur=[2], cv="still fully operational")

I(F, "Does my brother like horror movies?", [
 "My brother Dmitri won't watch slasher movies, too gory for him.",
 "He loves slow-burn psychological horror like The Witch and Hereditary.",
 "We do a horror movie night every October.",
 "He wants to do The Lighthouse this year.",
], cur=[1, 2], cv="psychological horror")

I(F, "Do we use microservices?", [
 "We're not doing microservices for the core product; it's a modular monolith in Rails.",
 "The ML inference and video transcoding run as separate services, because of resource needs.",
 "Monolith deploys take about 8 minutes.",
 "Transcoder runs on spot instances.",
 "Team agreed the monolith stays until at least 50 engineers.",
], cur=[1, 2], cv="modular monolith")

I(F, "Do I like gardening?", [
 "I hate weeding, it's the worst chore.",
 "Growing vegetables is one of my favourite things though, especially tomatoes.",
 "Raised beds with mulch keep the weeding down.",
 "Harvested the first Sungold tomatoes today.",
], cur=[1, 2], cv="Growing vegetables")

I(F, "Does the VPN route all traffic?", [
 "The corporate VPN does not route all traffic — it's split tunnel.",
 "Traffic to 10.0.0.0/8 and the internal domains goes through the tunnel.",
 "Everything else goes out the user's normal connection.",
 "Client is WireGuard-based.",
 "Finance laptops are the exception: they use full-tunnel mode.",
], cur=[1, 5], cv="split tunnel")

I(F, "Does my dad drink alcohol?", [
 "Dad doesn't drink spirits since his liver scare.",
 "He still has a glass of red wine with dinner on weekends, doctor's okay.",
 "He's really into non-alcoholic beers now too.",
 "Brought him a case of Athletic Brewing.",
], cur=[1, 2], cv="red wine")

I(F, "Is the database publicly accessible?", [
 "The production database has no public IP.",
 "Engineers reach it through a bastion host with SSO and short-lived certs.",
 "The bastion itself has a public IP but only port 22 from office ranges.",
 "Query logs from the bastion sessions go to the SIEM.",
], cur=[1], cv="no public IP")
