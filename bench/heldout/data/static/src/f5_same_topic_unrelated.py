from common import I
F = "same_topic_unrelated"

I(F, "What port does the orders service listen on?", [
 "orders service listens on port 8081 inside the cluster.",
 "orders has a NetworkPolicy that only allows ingress from the gateway and the billing namespace.",
 "It runs 3 replicas in prod with a PodDisruptionBudget of 1.",
 "Owner of orders is the Commerce team; escalation goes to Nikhil.",
 "orders' readiness probe hits /ready every 10 seconds.",
], cur=[1], cv="8081")

I(F, "Who is Farida's manager?", [
 "Farida's title is Staff Product Designer.",
 "She commutes by ferry from Sausalito, about 30 minutes each way.",
 "Farida reports to Gabriel Osei, the design director.",
 "She's in the office Mondays and Thursdays.",
 "Farida leads the accessibility guild on the side.",
], cur=[3], cv="Gabriel Osei")

I(F, "How many replicas does the notifications service run?", [
 "notifications service owner is the Engagement team.",
 "It runs 4 replicas in production.",
 "Its egress is restricted to the APNs and FCM endpoints plus our SMTP relay.",
 "We scaled notifications up to 8 replicas permanently after the marketing campaign volumes became the new normal.",
 "Container image is built from the distroless base.",
 "notifications' CPU request is 250m.",
], cur=[4], cv="8 replicas", stale=[2], sv=["4 replicas"])

I(F, "What's my car's next service date?", [
 "The Outback's oil was changed at 42,000 miles.",
 "Insurance on the Outback renews every March.",
 "Next scheduled service is on 14 August at Eastside Subaru.",
 "It's on all-season tires, winters are in the garage.",
 "Registration sticker expires in November.",
], cur=[3], cv="14 August")

I(F, "What's Dr. Amsel's office phone number?", [
 "My GP is Dr. Amsel at Riverside Family Practice.",
 "Dr. Amsel's office number is 617-555-0123.",
 "She's in on Tuesdays, Wednesdays and Fridays only.",
 "Riverside's parking garage is validated for two hours.",
 "Her nurse practitioner, Jo, handles most refills.",
], cur=[2], cv="617-555-0123")

I(F, "Where is the payments service's source code?", [
 "payments service runs on port 9000.",
 "Its source is in the GitLab repo finance/payments-core.",
 "Deploys are via ArgoCD, app name payments-prod.",
 "Alerts for payments go to the #payments-oncall channel.",
 "TLS certs for payments are issued by the internal Vault PKI.",
], cur=[2], cv="finance/payments-core")

I(F, "What's Marisol's job title?", [
 "Marisol works at the city planning department.",
 "She's a Senior Transportation Planner.",
 "Her manager there is a guy named Clyde Benson.",
 "She bikes to work, about 4 miles along the river path.",
 "Marisol got promoted — she's Principal Transportation Planner now.",
 "She's presenting the bike lane plan to council next month.",
], cur=[5], cv="Principal Transportation Planner", stale=[2], sv=["Senior Transportation Planner"])

I(F, "What's the check-in time at our Lake Tahoe rental?", [
 "The Tahoe cabin rental sleeps eight.",
 "Check-in is at 4pm, check-out at 10am.",
 "It has a hot tub and a wood stove.",
 "The host is named Dale, very responsive on Airbnb.",
 "Chains are required on the driveway in winter.",
], cur=[2], cv="4pm")

I(F, "What's the visibility timeout on the image-processing queue?", [
 "image-processing SQS queue has a 14-day message retention.",
 "Visibility timeout on image-processing is 300 seconds.",
 "Its dead-letter queue kicks in after 3 receives.",
 "The queue is encrypted with the 'media' KMS key.",
 "Consumers are the thumbnailer Lambda and the OCR service.",
], cur=[2], cv="300 seconds")

I(F, "What's my sister's daughter's name?", [
 "My sister Corinne lives in Halifax.",
 "She works as a pediatric nurse at the IWK.",
 "Her daughter is named Elodie, she's three.",
 "Corinne's husband Will is a high school music teacher.",
 "They have a rescue greyhound called Pilot.",
], cur=[3], cv="Elodie")

I(F, "Which version of Terraform does the infra repo require?", [
 "infra repo state is stored in S3 with DynamoDB locking.",
 "Required Terraform version is 1.5.7, pinned in versions.tf.",
 "The AWS provider is pinned to ~> 5.0.",
 "CI runs terraform plan on every PR via Atlantis.",
 "Upgraded the infra repo to require Terraform 1.7.5; everyone needs to update tfenv.",
 "Atlantis still posts plans as PR comments, no change there.",
], cur=[5], cv="1.7.5", stale=[2], sv=["1.5.7"])

I(F, "What's my flight number to Reykjavik?", [
 "Iceland trip: flight to Reykjavik is FI 614 from JFK.",
 "Hotel in Reykjavik is the Kvosin, near the harbor.",
 "Rental car pickup at Keflavík, a Dacia Duster 4x4.",
 "Booked the Sky Lagoon for the first evening.",
 "Travel insurance through World Nomads.",
], cur=[1], cv="FI 614")

I(F, "What's the daily limit on my debit card?", [
 "My debit card is with Northgate Bank.",
 "The ATM withdrawal limit is $500 a day.",
 "Daily purchase limit on the debit card is $3,000.",
 "Card expires 08/27.",
 "Turned on contactless and travel notices for Portugal.",
], cur=[3], cv="$3,000")

I(F, "Who is the product manager for the search team?", [
 "Search team's engineering manager is Yusuf Demir.",
 "The PM for search is Chiara Lombardi.",
 "Search team sits on the 4th floor, near the kitchen.",
 "Search has a weekly demo on Fridays at 3.",
 "Search's quarterly goal is improving zero-result rate.",
], cur=[2], cv="Chiara Lombardi")

I(F, "How often does my dog get his heartworm pill?", [
 "Bruno weighs 31 kilos, vet wants him at 29.",
 "Bruno gets his heartworm pill on the 1st of every month.",
 "He's on a grain-free kibble from Acana.",
 "Groomer appointments every eight weeks at Sudsy Paws.",
 "Bruno's rabies vaccine is good until next May.",
], cur=[2], cv="1st of every month")

I(F, "What's the max connection count for the main Postgres?", [
 "Main Postgres is on an r6g.2xlarge.",
 "max_connections is set to 200.",
 "Autovacuum is tuned more aggressively on the events table.",
 "Backups are taken by pgBackRest every 6 hours.",
 "We raised max_connections to 400 after adding pgbouncer transaction pooling.",
 "Still on r6g.2xlarge, no need to resize yet.",
], cur=[5], cv="400", stale=[2], sv=["200"])

I(F, "What time does my daughter's bus come?", [
 "Ava's school is Jefferson Elementary.",
 "Her bus, route 12, picks up at the corner at 7:42.",
 "Her teacher this year is Mr. Tran.",
 "Lunch account balance is topped up monthly.",
 "After-school care runs until 6pm.",
], cur=[2], cv="7:42")

I(F, "What's the log level in production for the API?", [
 "API in production is deployed in three AZs.",
 "Log level in prod is INFO.",
 "Structured logs go to Datadog with the service tag api.",
 "Request IDs are propagated via the X-Request-ID header.",
 "Debug logging can be toggled per-request with a signed header.",
], cur=[2], cv="INFO")

I(F, "Which floor is Eamon's desk on?", [
 "Eamon joined as a backend engineer on the Identity team.",
 "His desk is on the 7th floor, by the window.",
 "Eamon's manager is Priscilla Nunez.",
 "He commutes on the Red Line, about 40 minutes.",
 "Eamon's doing the on-call rotation starting next month.",
], cur=[2], cv="7th floor")

I(F, "What's the deductible on our health plan?", [
 "Health plan is the Blue Shield PPO through my employer.",
 "Deductible is $1,500 per person, $3,000 family.",
 "Out-of-pocket max is $6,000 per person.",
 "Our pediatrician, Dr. Yoon, is in-network.",
 "New plan year: deductible went up to $2,000 per person, $4,000 family.",
 "Dr. Yoon still in-network, checked.",
], cur=[5], cv="$2,000 per person", stale=[2], sv=["$1,500 per person"])

I(F, "What's the cache TTL on the pricing service?", [
 "pricing service is written in Rust.",
 "Its in-memory cache TTL is 60 seconds.",
 "pricing calls the inventory service for stock levels.",
 "It has 99.99% availability target because checkout depends on it.",
 "Owner: Revenue Engineering.",
], cur=[2], cv="60 seconds")

I(F, "What's the name of my son's best friend?", [
 "Jude is in fifth grade at Lincoln.",
 "His best friend is Ravi, they've been inseparable since preschool.",
 "Jude plays baseball, catcher.",
 "He's allergic to bee stings.",
 "Jude's doing the science fair with a volcano, very original.",
], cur=[2], cv="Ravi")

I(F, "Which availability zone is the primary database in?", [
 "Primary RDS instance is db.r6i.xlarge.",
 "It sits in us-east-1a.",
 "Multi-AZ standby is in us-east-1c.",
 "Storage is 2 TB gp3 with 12k IOPS provisioned.",
 "After the failover drill we left the primary where it landed, in us-east-1b; the standby stays where it was.",
 "Instance class unchanged.",
], cur=[5], cv="us-east-1b", stale=[2], sv=["us-east-1a"])

I(F, "What's my landlord's email?", [
 "Landlord is Ms. Abernathy.",
 "Her email is j.abernathy@fastmail.com.",
 "Rent is due on the 1st, paid via Zelle.",
 "Maintenance requests go through her handyman Rudy.",
 "Lease ends July 31.",
], cur=[2], cv="j.abernathy@fastmail.com")

I(F, "When does the quarterly business review happen?", [
 "Quarterly business review is the second Thursday after quarter close.",
 "QBR deck template lives in the Strategy shared drive.",
 "Finance presents first, then each department head.",
 "Attendees: execs plus department heads, around 20 people.",
 "QBR is recorded for those who can't attend.",
], cur=[1], cv="second Thursday after quarter close")

I(F, "What's the name of my therapist?", [
 "Started therapy — sessions are Wednesdays at 6pm.",
 "My therapist is Dr. Lindqvist, she does CBT mostly.",
 "Insurance covers 20 sessions a year.",
 "Office is on the second floor of the Crane building.",
 "She suggested journaling before bed.",
], cur=[2], cv="Dr. Lindqvist")

I(F, "What's the Kafka topic's retention?", [
 "Topic user-events has 24 partitions.",
 "Replication factor is 3.",
 "Retention on user-events is 7 days.",
 "Consumers: analytics-sink and the fraud scorer.",
 "Bumped user-events retention to 14 days for the backfill use case; partitions unchanged.",
], cur=[5], cv="14 days", stale=[3], sv=["7 days"])

I(F, "What does my brother-in-law do for work?", [
 "My brother-in-law Hugo lives in Montreal.",
 "He's an airline pilot, flies A220s for Air Canada.",
 "He and my sister have twin boys.",
 "Hugo is a huge Canadiens fan.",
 "They're renovating their kitchen this summer.",
], cur=[2], cv="airline pilot")

I(F, "What's the warranty period on the dishwasher?", [
 "New dishwasher is a Bosch 800 series.",
 "Installed by Atlas Appliance on March 8.",
 "Warranty is 2 years parts and labor, 5 years on the motor.",
 "Rinse aid goes in the little door on the left.",
 "Model number is SHPM88Z75N.",
], cur=[3], cv="2 years parts and labor")

I(F, "What's the base image for the API container?", [
 "API container exposes port 8000.",
 "Base image is python:3.11-slim.",
 "Runs as non-root user 'app' with UID 10001.",
 "Health check is a curl to /healthz.",
 "Switched the API base image to cgr.dev/chainguard/python for fewer CVEs.",
 "Still runs as UID 10001.",
], cur=[5], cv="cgr.dev/chainguard/python", stale=[2], sv=["python:3.11-slim"])

I(F, "Where is my parents' lake house?", [
 "My parents' lake house is on Lake Winnipesaukee, near Wolfeboro.",
 "It has a boathouse and an old canoe.",
 "They open it up Memorial Day and close it in October.",
 "Dad re-shingled the roof himself last year, which terrified Mom.",
 "The neighbors, the Costellos, keep an eye on it in winter.",
], cur=[1], cv="Lake Winnipesaukee")

I(F, "What's the SSO provider for our company?", [
 "Company laptops are managed via Jamf.",
 "SSO is Okta.",
 "VPN is Tailscale, authenticated through Okta.",
 "Password manager is 1Password Business.",
 "New hires get their Okta invite on day one.",
], cur=[2], cv="Okta")

I(F, "What's my gym locker number?", [
 "Gym membership at Peak Fitness, $49/month.",
 "Locker number is 218, combo on my phone.",
 "Spin class Tuesdays at 6am with instructor Becca.",
 "They moved me to locker 341 during the locker-room renovation and said it's permanent.",
 "Still doing spin with Becca.",
], cur=[4], cv="341", stale=[2], sv=["218"])

I(F, "What's the grace period on the subscription after a failed payment?", [
 "Subscription plans are Basic, Pro and Team.",
 "Pro is billed at $29 per month.",
 "After a failed payment, customers get a 7-day grace period before downgrade.",
 "Dunning emails go out on day 1, 3 and 6.",
 "Team plan has a 5-seat minimum.",
], cur=[3], cv="7-day grace period")

I(F, "What's the name of my coworker's dog?", [
 "My coworker Lorenzo sits across from me.",
 "He has a dachshund called Noodle.",
 "Lorenzo is from Turin, moved here four years ago.",
 "He's training for the Chicago marathon.",
 "Noodle came to the office on bring-your-dog day and stole a sandwich.",
], cur=[2, 5], cv="Noodle")

I(F, "What CIDR does the staging VPC use?", [
 "Staging VPC is in us-west-2.",
 "Its CIDR block is 10.20.0.0/16.",
 "There are three private subnets and three public.",
 "NAT gateway is a single one in the first AZ to save costs.",
 "VPC flow logs go to the security account.",
], cur=[2], cv="10.20.0.0/16")

I(F, "What's my frequent flyer number with Delta?", [
 "Delta SkyMiles number is 9087 6543 21.",
 "I'm Gold Medallion this year.",
 "My United MileagePlus is separate, rarely use it.",
 "Delta Amex card gives a free checked bag.",
 "Known Traveler Number is on my Delta profile too.",
], cur=[1], cv="9087 6543 21")

I(F, "What's the release cadence of the mobile app?", [
 "Mobile app is built with React Native.",
 "We ship to the app stores every two weeks.",
 "Crash reporting through Bugsnag.",
 "We moved the mobile app to a weekly release train on Tuesdays.",
 "Minimum supported iOS is 15.",
 "Still React Native, the rewrite talk died down.",
], cur=[4], cv="weekly release train", stale=[2], sv=["every two weeks"])

I(F, "What's the mortgage interest rate?", [
 "Mortgage is with Summit Lending, 30-year fixed.",
 "Rate is 3.125%, locked in 2021.",
 "Monthly payment is $2,340 including escrow.",
 "Escrow covers property tax and homeowners insurance.",
 "Looked at refinancing, makes no sense at today's rates, so we're keeping this loan.",
], cur=[2], cv="3.125%")

I(F, "Who is the account manager for Brightwater Logistics?", [
 "Brightwater Logistics signed a three-year contract in January.",
 "Their account manager on our side is Trevor Mbeki.",
 "Brightwater's technical contact is their CTO, Ines Carvalho.",
 "They're on the Enterprise tier with a dedicated Slack channel, #ext-brightwater.",
 "Trevor moved to the partnerships team; Brightwater's account manager is now Olga Petrova.",
 "Ines is still their technical contact and the contract terms are unchanged.",
], cur=[5], cv="Olga Petrova", stale=[2], sv=["Trevor Mbeki"])
