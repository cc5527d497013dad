from common import I
F = "static_restated"

I(F, "Where do I work?", [
 "I work as a pharmacist at Hartwell Pharmacy on Main Street.",
 "My commute is a 12-minute walk, which I love.",
 "Long shift at Hartwell today, flu shots all afternoon.",
 "Picked up pottery on Thursday evenings.",
 "Five years at Hartwell Pharmacy this month! They gave me a cake.",
 "Thinking about a trip to Crete in the fall.",
], cur=[1, 3, 5], cv="Hartwell Pharmacy")

I(F, "What database engine do we use for the main app?", [
 "Main app database is PostgreSQL 15.",
 "Frontend is Next.js, deployed on Vercel.",
 "Added a partial index on orders(status) in Postgres, queries are way faster.",
 "Reminder for new hires: we're a Postgres shop, please don't propose MongoDB.",
 "CI uses Testcontainers to spin up PostgreSQL for integration tests.",
 "Design system moved to Tailwind.",
], cur=[1, 3, 4, 5], cv="PostgreSQL")

I(F, "What's my dog's name?", [
 "Our dog is called Waffles, a corgi.",
 "Took Waffles to the beach, he tried to herd the seagulls.",
 "My partner started a new job at the museum.",
 "Waffles has a vet appointment next Tuesday for his teeth.",
 "The corgi, Waffles, knocked over the Christmas tree. Again.",
], cur=[1, 2, 4, 5], cv="Waffles")

I(F, "Which cloud provider do we run on?", [
 "We're all-in on Google Cloud.",
 "Hiring two more SREs this quarter.",
 "Our BigQuery bill on GCP was high this month, mostly from ad-hoc queries.",
 "Team picnic is on the 14th.",
 "Renewed our committed use discount with Google Cloud for another year.",
 "Still on GCP, GKE Autopilot for most workloads.",
], cur=[1, 3, 5, 6], cv="Google Cloud")

I(F, "What's my wife's name?", [
 "My wife Thandiwe is a structural engineer.",
 "We're planning a trip to Cape Town to visit her family.",
 "Thandiwe got her chartered status!",
 "Our anniversary dinner is at Osteria Nonna on Saturday.",
 "Thandi — that's what everyone calls my wife — is running her first half marathon.",
], cur=[1, 3, 5], cv="Thandiwe")

I(F, "Which package manager does the frontend use?", [
 "Frontend uses pnpm, lockfile is pnpm-lock.yaml.",
 "Storybook upgrade to v8 is done.",
 "Please don't commit package-lock.json, we use pnpm.",
 "Renovate bot opens weekly dependency PRs.",
 "CI caches the pnpm store between runs.",
 "Added a lint rule for unused imports.",
], cur=[1, 3, 5], cv="pnpm")

I(F, "What city do I live in?", [
 "I live in Ghent, in Belgium.",
 "Went to a concert at Vooruit last night.",
 "It's been raining for a week in Ghent, classic.",
 "Started learning to cook waterzooi, the Ghent stew.",
 "My manager wants me in Brussels once a month, easy train ride from Ghent.",
 "Biked along the Leie this morning.",
], cur=[1, 3, 5], cv="Ghent")

I(F, "What's my blood pressure medication?", [
 "I take amlodipine for blood pressure, 5 mg a day.",
 "Started going to yoga on Sundays.",
 "Pharmacy refilled my amlodipine, 90-day supply.",
 "My BP reading this morning was 124/80.",
 "Doctor said to keep the amlodipine as is.",
], cur=[1, 3, 5], cv="amlodipine")

I(F, "Which ticketing system do we use?", [
 "We use Jira for all engineering tickets.",
 "Sprint planning is every other Monday.",
 "Filed a Jira ticket for the flaky login test.",
 "Support team uses Zendesk for customer tickets, but engineering work lives in Jira.",
 "Retro action item: clean up the Jira board columns.",
], cur=[1, 3, 4, 5], cv="Jira")

I(F, "What's my daughter's name?", [
 "My daughter is Saoirse, she's four.",
 "We're repainting the kitchen a sage green.",
 "Saoirse drew a portrait of the cat, it's mostly legs.",
 "My husband's working nights this month.",
 "Saoirse's preschool concert is on Friday — she's a sheep.",
 "Bought a new car seat for her.",
], cur=[1, 3, 5], cv="Saoirse")

I(F, "Which CI system do we use?", [
 "CI is GitHub Actions.",
 "We self-host runners on spot instances for the heavy jobs in Actions.",
 "New staff engineer Pilar started this week.",
 "GitHub Actions minutes were over budget, so more jobs move to the self-hosted runners.",
 "Office moved to the 3rd floor.",
 "Wrote a reusable workflow for Actions that all repos can call.",
], cur=[1, 2, 4, 6], cv="GitHub Actions")

I(F, "What do I do for a living?", [
 "I'm a high school chemistry teacher.",
 "Grading exams all weekend, the life of a teacher.",
 "Bought a kayak!",
 "Running the chemistry club's science fair this year.",
 "Summer break, finally. Still a chemistry teacher, still love it.",
], cur=[1, 2, 4, 5], cv="chemistry teacher")

I(F, "What's the primary programming language at my company?", [
 "Our backend is mostly Elixir, with Phoenix.",
 "Moved team lunches to Wednesdays.",
 "Hired two Elixir devs from the local meetup.",
 "Tried a bit of Rust for a NIF, but the core stays Elixir.",
 "ElixirConf is next month, three of us are going.",
], cur=[1, 3, 4, 5], cv="Elixir")

I(F, "Where did I go to college?", [
 "I went to the University of Michigan, studied economics.",
 "My roommate from Ann Arbor is visiting next week.",
 "Wearing my old Michigan hoodie, it's 15 years old.",
 "Got a job offer from a bank in Chicago.",
 "Homecoming at U of M this fall, the whole econ crew is going.",
], cur=[1, 3, 5], cv="University of Michigan")

I(F, "What's my cat's name?", [
 "Got a kitten! Her name is Mochi.",
 "Mochi knocked a glass off the counter.",
 "I switched jobs, now at a design agency.",
 "Mochi is spayed, recovered fine.",
 "Mochi turned one and we celebrated with a tiny tuna cake.",
 "Started learning Korean.",
], cur=[1, 2, 4, 5], cv="Mochi")

I(F, "What monitoring tool do we use?", [
 "Monitoring is Datadog.",
 "We're migrating config management from Chef to Ansible.",
 "Datadog APM is now on for all Java services.",
 "Ansible migration is 60% done.",
 "Renewed the Datadog contract for two years.",
], cur=[1, 3, 5], cv="Datadog")

I(F, "What's my favorite football team?", [
 "I'm a lifelong Liverpool supporter.",
 "Went to Anfield for the first time in years, incredible atmosphere.",
 "Started a new job in logistics.",
 "Liverpool won the derby, I'm hoarse from shouting.",
 "My son is a Liverpool fan too now, we got him the kit.",
], cur=[1, 2, 4, 5], cv="Liverpool")

I(F, "What is my employee ID?", [
 "My employee ID is E-48213.",
 "Benefits enrollment closes Friday.",
 "HR asked for my ID again: E-48213.",
 "Badge photo retaken, same employee number.",
 "Expense reports need the employee ID E-48213 in the header.",
], cur=[1, 3, 5], cv="E-48213")

I(F, "Which version control host do we use?", [
 "Our code is on GitLab, self-managed.",
 "Migrated the wiki to Notion.",
 "Upgraded our GitLab instance to the latest minor.",
 "GitLab runners are on Kubernetes.",
 "Team retro moved to Thursdays.",
], cur=[1, 3, 4], cv="GitLab")

I(F, "Where is my family from originally?", [
 "My family is originally from Kerala, in southern India.",
 "My grandmother still lives in Kochi.",
 "Learning to make appam like my mother does.",
 "Planning a trip back to Kerala for my cousin's wedding.",
 "Malayalam is what we speak at home, since we're from Kerala.",
], cur=[1, 4, 5], cv="Kerala")

I(F, "What's our team's Slack channel?", [
 "Our team channel is #team-atlas.",
 "Atlas is launching the new onboarding flow next sprint.",
 "Posted the sprint demo recording in #team-atlas.",
 "Moved standups to async updates in #team-atlas.",
 "Priya joined Atlas this week.",
], cur=[1, 3, 4], cv="#team-atlas")

I(F, "What's my partner's job?", [
 "My partner Jules is a veterinary surgeon.",
 "We got a new couch.",
 "Jules did a six-hour surgery on a Great Dane today.",
 "Jules's clinic is hiring another vet surgeon, so maybe fewer weekend shifts.",
 "Going to Jules's vet conference in Vienna with her.",
], cur=[1, 3, 4], cv="veterinary surgeon")

I(F, "Which region is our primary AWS region?", [
 "Primary AWS region is eu-central-1 (Frankfurt).",
 "DR is in eu-west-1.",
 "Reserved instances renewed in eu-central-1.",
 "Latency from Frankfurt to our Polish customers is great.",
 "DR drill in eu-west-1 went fine.",
 "All new services default to eu-central-1.",
], cur=[1, 3, 6], cv="eu-central-1")

I(F, "How do I take my coffee?", [
 "I take my coffee black, no sugar.",
 "The new café on the corner does a great croissant.",
 "Barista asked if I wanted milk, I said just black please.",
 "Got a new AeroPress for the office.",
 "Black coffee, one cup at 7am, that's my ritual.",
], cur=[1, 3, 5], cv="black")

I(F, "What's my son's school?", [
 "Finn goes to Ridgeview Academy.",
 "We're getting a new roof in spring.",
 "Ridgeview's parent-teacher night is Thursday.",
 "Finn's class at Ridgeview is doing a Roman history project.",
 "Finn wants a guinea pig.",
], cur=[1, 3, 4], cv="Ridgeview Academy")

I(F, "What's the company's fiscal year end?", [
 "Our fiscal year ends June 30.",
 "Q3 close is always chaotic.",
 "Budget planning for next fiscal starts in April since FY ends June 30.",
 "Auditors arrive in July after fiscal year end.",
 "Finance reminder: fiscal year end June 30, get your expenses in.",
], cur=[1, 3, 5], cv="June 30")

I(F, "What kind of car do I drive?", [
 "I drive a 2017 Honda Civic hatchback.",
 "Took the Civic in for brakes.",
 "My daughter learned to drive stick on my brother's old truck.",
 "Road trip to Asheville in the Civic.",
 "The Honda hit 120,000 miles, still running perfectly.",
], cur=[1, 2, 4, 5], cv="Honda Civic")

I(F, "Which language do we write infrastructure-as-code in?", [
 "IaC is Pulumi, written in TypeScript.",
 "We're moving logs to Loki.",
 "New Pulumi stack for the analytics cluster, TypeScript as usual.",
 "Pulumi state is in their managed backend.",
 "Someone asked about Terraform; we're staying on Pulumi with TypeScript.",
], cur=[1, 3, 5], cv="Pulumi")

I(F, "Where do we go on vacation every summer?", [
 "Every summer we rent the same cottage on Prince Edward Island.",
 "Kids started swimming lessons.",
 "Booked PEI again for August.",
 "Found the best lobster roll place near the cottage on PEI.",
 "Summer on the island was perfect, same as every year.",
], cur=[1, 3, 4, 5], cv="Prince Edward Island")

I(F, "What's my dietary preference?", [
 "I'm vegetarian, have been for 10 years.",
 "Trying out a new running route.",
 "Restaurant had a great vegetarian tasting menu.",
 "Mom still asks if I eat fish. No, still vegetarian.",
 "Cooking a big vegetarian chili for the game.",
], cur=[1, 3, 4, 5], cv="vegetarian")

I(F, "What's the main office's address?", [
 "Main office is at 500 Market Street, 9th floor.",
 "We opened a satellite in Oakland.",
 "Visitors to 500 Market need to check in at the lobby desk.",
 "All-hands is at the main office, 500 Market Street.",
 "Oakland satellite is tiny, only 12 desks.",
], cur=[1, 3, 4], cv="500 Market Street")

I(F, "What's my running club?", [
 "I run with the Harbourfront Harriers on Tuesday nights.",
 "Got new running shoes, Saucony Endorphins.",
 "Harriers did a 10k hill session, brutal.",
 "My knee's been a bit sore.",
 "Harbourfront Harriers' annual dinner is next month, I'm going.",
], cur=[1, 3, 5], cv="Harbourfront Harriers")

I(F, "What's my preferred pronoun?", [
 "For the record, I use they/them pronouns.",
 "Starting a new job at the library.",
 "Introduced myself at the library team meeting with they/them.",
 "My email signature now includes they/them.",
 "Library is doing a zine workshop.",
], cur=[1, 3, 4], cv="they/them")

I(F, "What message broker do we use?", [
 "We use NATS for messaging between services.",
 "JetStream is enabled on NATS for durable streams.",
 "Onboarding doc updated.",
 "NATS cluster has 3 nodes across AZs.",
 "Evaluated Kafka, decided NATS is enough for our scale.",
], cur=[1, 2, 4, 5], cv="NATS")

I(F, "What's my mother's hometown?", [
 "My mom grew up in Tromsø, way up north in Norway.",
 "She moved to Oslo for university.",
 "Mom showed me pictures of the northern lights over Tromsø from her childhood.",
 "We're visiting Tromsø together next winter, her first time back in years.",
 "Mom's learning to paint watercolors.",
], cur=[1, 3, 4], cv="Tromsø")

I(F, "What's our deploy tool?", [
 "Deploys are done through Spinnaker.",
 "Canary analysis runs in Spinnaker using Kayenta.",
 "Hiring a new designer.",
 "Spinnaker pipeline for the search service added.",
 "Still Spinnaker for everything, even though people grumble about the UI.",
], cur=[1, 2, 4, 5], cv="Spinnaker")

I(F, "What's my hometown?", [
 "I'm from Tulsa, Oklahoma.",
 "Living in Denver now for work.",
 "Flying home to Tulsa for Thanksgiving.",
 "Denver's been snowy.",
 "Tulsa friends threw me a birthday party when I visited.",
], cur=[1, 3, 5], cv="Tulsa")

I(F, "What's our code review rule?", [
 "Every PR needs at least two approvals before merge.",
 "Release notes are now auto-generated.",
 "Reminder: two approvals minimum, no self-merging.",
 "We added CODEOWNERS so the right reviewers get pinged.",
 "Still two approvals required, even for docs-only PRs.",
], cur=[1, 3, 5], cv="two approvals")

I(F, "What's my favorite food?", [
 "My favorite food in the world is pho.",
 "Discovered a new pho place in Little Saigon, might be the best yet.",
 "Going on a work trip to Dallas.",
 "Pho for lunch again, no regrets.",
 "Friends know: if in doubt, take me for pho.",
], cur=[1, 2, 4, 5], cv="pho")

I(F, "What time is my weekly team meeting?", [
 "Our weekly team sync is Mondays at 11:00.",
 "Booked a dentist appointment for the 22nd.",
 "Moved a 1:1 so it doesn't clash with the Monday 11:00 sync.",
 "My manager is out for paternity leave; someone else will chair the Monday sync, same time.",
 "Got a standing desk at work.",
 "Calendar cleanup: the team sync stays Mondays 11:00, everything else moves around it.",
], cur=[1, 3, 4, 6], cv="Mondays at 11:00")
