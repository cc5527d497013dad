from common import I
F = "multi_valued"

I(F, "What languages do I speak?", [
 "I grew up speaking Portuguese at home and English at school.",
 "Took Spanish in college and got pretty fluent living in Valencia for a year.",
 "Started learning Japanese on Duolingo, can order food now.",
 "Finally got my JLPT N4 in Japanese!",
 "Spanish is still strong, I used it all week at the conference in Bogotá.",
], cur=[1, 2, 3, 4, 5], cv="Spanish")

I(F, "Which plugins are installed on the Jenkins server?", [
 "Jenkins plugins so far: Git, Pipeline, and Blue Ocean.",
 "Added the Slack Notification plugin so builds post to #ci.",
 "Installed Role-based Authorization Strategy for the contractor accounts.",
 "Also put on the Kubernetes plugin for ephemeral build agents.",
 "Docker Pipeline plugin added today.",
], cur=[1, 2, 3, 4, 5], cv="Kubernetes plugin")

I(F, "What am I allergic to?", [
 "I'm allergic to penicillin — found out the hard way as a kid.",
 "Allergist confirmed I'm also allergic to cat dander.",
 "And shellfish. Shrimp specifically makes my throat itchy.",
 "Added latex to the list after a reaction at the dentist.",
 "Got a medical ID bracelet listing all of them.",
], cur=[1, 2, 3, 4], cv="shellfish")

I(F, "Who is on the data platform team?", [
 "Data platform team kicked off with three people: Hamid, Lucía and Theo.",
 "Welcome Bronwyn, who joins data platform as a senior engineer from Spotify.",
 "Theo is now the team's tech lead, still on data platform.",
 "New grad Kwame joined data platform this month.",
 "Team offsite in Lisbon: Hamid, Lucía, Theo, Bronwyn and Kwame all going.",
], cur=[1, 2, 3, 4, 5], cv="Bronwyn")

I(F, "What are my hobbies?", [
 "My main hobby is woodworking, mostly small boxes and cutting boards.",
 "Started bouldering with a coworker, twice a week.",
 "Picked up film photography, shooting on a Pentax K1000.",
 "Still doing woodworking — made a walnut side table last month.",
 "Joined a birdwatching group on Saturday mornings.",
], cur=[1, 2, 3, 4, 5], cv="bouldering")

I(F, "What tags are on the customer-churn dataset?", [
 "Tagged the customer-churn dataset with 'pii' and 'finance'.",
 "Added 'gold-tier' to customer-churn after it passed the quality checks.",
 "Compliance asked for 'gdpr-scope' on it too, added.",
 "The marketing team added 'ml-feature-source' since their model reads it.",
], cur=[1, 2, 3, 4], cv="gdpr-scope")

I(F, "Which countries have I visited?", [
 "Travel log: first trip abroad was to Mexico in 2012.",
 "Did a backpacking trip through Vietnam and Cambodia in 2015.",
 "Work sent me to Germany for a conference.",
 "Honeymoon in Greece, Santorini and Naxos.",
 "Long weekend in Iceland for my 35th.",
 "Added Morocco to the list this spring!",
], cur=[1, 2, 3, 4, 5, 6], cv="Cambodia")

I(F, "What medications am I taking?", [
 "I take levothyroxine every morning for my thyroid.",
 "Doctor added vitamin D, 2000 IU daily.",
 "Started lisinopril for blood pressure, 10 mg.",
 "Still on the levothyroxine, dose unchanged.",
 "Also taking magnesium glycinate at night to help with sleep.",
], cur=[1, 2, 3, 4, 5], cv="lisinopril")

I(F, "What environment variables does the worker need?", [
 "Worker needs DATABASE_URL and REDIS_URL to start.",
 "Added SENTRY_DSN to the worker for error reporting.",
 "The worker also requires S3_BUCKET for uploading generated reports.",
 "New one: FEATURE_FLAGS_URL, for the toggles client.",
 "Documented all of them in the worker README.",
], cur=[1, 2, 3, 4], cv="SENTRY_DSN")

I(F, "Which instruments can my daughter play?", [
 "Amara has been playing violin since she was six.",
 "She picked up piano at school this year, loves it.",
 "Now she's teaching herself ukulele from YouTube.",
 "Her violin teacher says she's ready for the youth orchestra.",
 "School band gave her a clarinet to try too.",
], cur=[1, 2, 3, 4, 5], cv="ukulele")

I(F, "What streaming services do we subscribe to?", [
 "We have Netflix, the standard plan.",
 "Added Disney+ for the kids.",
 "Got the Criterion Channel for me, no regrets.",
 "Signed up for Apple TV+ mainly for Severance.",
], cur=[1, 2, 3, 4], cv="Criterion Channel")

I(F, "Which certifications do I hold?", [
 "Got my AWS Solutions Architect Associate cert.",
 "Passed the CKA exam for Kubernetes!",
 "Also have my PMP from the old job, still active.",
 "Added the HashiCorp Terraform Associate this quarter.",
 "Renewed the AWS SA Associate, good for another three years.",
], cur=[1, 2, 3, 4, 5], cv="CKA")

I(F, "What pets do we have?", [
 "We have a golden retriever named Sunny.",
 "Adopted two guinea pigs, Salt and Pepper.",
 "My son won a goldfish at the fair — it's named Captain.",
 "Sunny turned eight, still a puppy at heart.",
 "Now we also have a bearded dragon called Ziggy. The house is a zoo.",
], cur=[1, 2, 3, 4, 5], cv="Ziggy")

I(F, "Which regions is the app deployed to?", [
 "App is deployed to us-east-1 as the primary.",
 "Added eu-west-1 for the EU customers.",
 "Brought up ap-northeast-1 for our Japanese clients.",
 "us-west-2 is now live as a second US region for failover.",
 "All four regions healthy after the game day.",
], cur=[1, 2, 3, 4, 5], cv="ap-northeast-1")

I(F, "What foods does my son refuse to eat?", [
 "Leo won't eat mushrooms, calls them 'slugs'.",
 "Also no olives, he spits them out.",
 "Added tomatoes to the no list, unless it's ketchup, of course.",
 "Mushrooms are still banned, tried sneaking them into pasta sauce.",
], cur=[1, 2, 3, 4], cv="olives")

I(F, "What sports does my wife play?", [
 "Ingrid plays tennis every Saturday with her sister.",
 "She joined a women's hockey league, playing defense.",
 "She's also doing pickleball at lunch with her coworkers.",
 "Her tennis serve has gotten scary fast.",
], cur=[1, 2, 3, 4], cv="pickleball")

I(F, "Which email addresses get the on-call digest?", [
 "On-call digest goes to sre@acme.io.",
 "Added eng-managers@acme.io to the on-call digest distribution.",
 "VP of Eng asked to be on it too: j.morales@acme.io.",
 "Security wants visibility: security-ops@acme.io added.",
], cur=[1, 2, 3, 4], cv="security-ops@acme.io")

I(F, "What board games do we own?", [
 "Our board game shelf: Catan, Ticket to Ride and Codenames.",
 "Bought Wingspan, it's gorgeous.",
 "Friend gave us Azul for the holidays.",
 "Added Spirit Island, which nobody understands yet.",
 "Codenames is still the party favorite.",
], cur=[1, 2, 3, 4, 5], cv="Wingspan")

I(F, "Which VS Code extensions do I use?", [
 "VS Code extensions: Python, Pylance and GitLens.",
 "Installed Error Lens, love seeing errors inline.",
 "Added the Docker extension for compose files.",
 "Also Vim keybindings now. Don't judge.",
 "Prettier for the JS side projects.",
], cur=[1, 2, 3, 4, 5], cv="Error Lens")

I(F, "Who are the emergency contacts for my daughter's school?", [
 "Emergency contacts on file at Willow's school: me and my husband Marco.",
 "Added my mother, Patricia, as a third contact.",
 "Our neighbor Sunita agreed to be a contact too, she's home during the day.",
 "Updated the form again, all four still listed.",
], cur=[1, 2, 3, 4], cv="Sunita")

I(F, "Which currencies does the checkout support?", [
 "Checkout supports USD and CAD.",
 "EUR added for the European launch.",
 "GBP is live as of today.",
 "Added JPY, the zero-decimal handling took a while.",
 "Australian dollars (AUD) now supported too.",
], cur=[1, 2, 3, 4, 5], cv="GBP")

I(F, "What volunteer work do I do?", [
 "I volunteer at the food bank every other Saturday.",
 "Started reading to kids at the library on Wednesday afternoons.",
 "Also signed up to be a trail steward for the county parks.",
 "Food bank made me a shift lead!",
], cur=[1, 2, 3, 4], cv="trail steward")

I(F, "What are the labels on the payments namespace?", [
 "Labeled the payments namespace with team=payments.",
 "Added pci=true to payments for the policy engine.",
 "Also cost-center=cc-4410 for finance's chargeback report.",
 "And istio-injection=enabled since we rolled out the mesh there.",
], cur=[1, 2, 3, 4], cv="pci=true")

I(F, "What kinds of trees are in our yard?", [
 "The yard has a big oak out front, probably 80 years old.",
 "Planted a Japanese maple by the patio.",
 "Two apple trees in the back, a Honeycrisp and a Gala.",
 "The neighbor says there's a black walnut on our side of the fence line too.",
 "Oak got a checkup from the arborist, healthy.",
], cur=[1, 2, 3, 4, 5], cv="Japanese maple")

I(F, "Who has admin rights on the Figma org?", [
 "Figma org admins: Sasha and me.",
 "Made Tomasz an admin since he runs the design system now.",
 "Added Imani as admin for the billing side.",
 "All three plus me reviewed the seat list this week.",
], cur=[1, 2, 3, 4], cv="Tomasz")

I(F, "What cuisines can I cook well?", [
 "I'm pretty good at Italian, especially risotto.",
 "Learned Thai curries from a cooking class in Chiang Mai.",
 "Got into Ethiopian cooking — made injera from scratch!",
 "My risotto is still the dinner party go-to.",
 "Working on Mexican moles now, the negro one is close.",
], cur=[1, 2, 3, 4, 5], cv="Ethiopian")

I(F, "Which alerts page the on-call engineer?", [
 "Paging alerts: API 5xx rate over 2% for 5 minutes.",
 "Also page on database replication lag over 60 seconds.",
 "Added a page for certificate expiry under 7 days.",
 "Queue depth over 10k on the payments queue pages too.",
 "Everything else goes to Slack only.",
], cur=[1, 2, 3, 4, 5], cv="certificate expiry")

I(F, "What are my kids' extracurriculars?", [
 "Nora does gymnastics Monday and Wednesday.",
 "Eli joined chess club at school.",
 "Nora added Girl Scouts, meets every other Thursday.",
 "Eli is also in the Lego robotics team.",
 "Both started Saturday art classes at the community center.",
], cur=[1, 2, 3, 4, 5], cv="chess club")

I(F, "What integrations does our Slack workspace have?", [
 "Slack integrations: GitHub and PagerDuty.",
 "Added Google Calendar for meeting reminders.",
 "Installed Linear so issues unfurl nicely.",
 "Donut for random coffee pairings, people like it.",
], cur=[1, 2, 3, 4], cv="Linear")

I(F, "What are my favorite authors?", [
 "Favorite authors: Ursula K. Le Guin, no contest.",
 "Discovered Kazuo Ishiguro this year, Never Let Me Go wrecked me.",
 "Octavia Butler joins the list after Parable of the Sower.",
 "Re-reading Le Guin's Earthsea books, still perfect.",
 "Add Ted Chiang to the favorites, the short stories are incredible.",
], cur=[1, 2, 3, 4, 5], cv="Octavia Butler")

I(F, "Which browsers do we test against?", [
 "E2E tests run against Chrome and Firefox.",
 "Added Safari via the WebKit runner in Playwright.",
 "Edge added for the enterprise customers.",
 "Mobile Safari on iOS emulation is now part of the nightly suite.",
], cur=[1, 2, 3, 4], cv="Edge")

I(F, "What are my dietary restrictions?", [
 "I'm lactose intolerant, so dairy's mostly out.",
 "Found out I have celiac disease — strictly gluten-free now.",
 "Also avoiding high-FODMAP onions and garlic per the GI doctor.",
 "Lactase pills help a bit with the dairy thing.",
], cur=[1, 2, 3, 4], cv="gluten-free")

I(F, "What languages is our docs site translated into?", [
 "Docs are available in English and French.",
 "German translation launched.",
 "Added Brazilian Portuguese thanks to a community contributor.",
 "Korean translation went live with the v3 docs.",
 "Spanish is in progress and live for the getting-started section.",
], cur=[1, 2, 3, 4, 5], cv="Korean")

I(F, "What apps are on my home server?", [
 "Home server runs Jellyfin and Home Assistant.",
 "Added Nextcloud for family photo backups.",
 "Pi-hole is now the DNS for the house.",
 "Put Paperless-ngx on it for scanning bills.",
 "Jellyfin got a transcoding upgrade with the Intel QuickSync passthrough.",
], cur=[1, 2, 3, 4, 5], cv="Pi-hole")

I(F, "What podcasts do I listen to?", [
 "Podcasts I follow: Hardcore History and 99% Invisible.",
 "Started listening to Search Engine.",
 "Added The Rest Is History for the commute.",
 "Also Changelog for the tech side.",
], cur=[1, 2, 3, 4], cv="Search Engine")

I(F, "Which insurance policies do we have?", [
 "Insurance: homeowners with State Farm.",
 "Got term life insurance, 20 years, for both of us.",
 "Added an umbrella policy after the financial advisor's suggestion.",
 "Pet insurance for the dog through Trupanion.",
 "Car insurance bundled with homeowners now.",
], cur=[1, 2, 3, 4, 5], cv="umbrella policy")

I(F, "Which reviewers are required on the auth module?", [
 "CODEOWNERS: auth module needs a review from @sofia-r.",
 "Added @security-team to auth/ as a required reviewer group.",
 "@bjorn-k added too since he wrote the SAML bits.",
 "Policy note: any one of them can approve, but security-team must be on the PR.",
], cur=[1, 2, 3, 4], cv="@bjorn-k")

I(F, "Which mountains have I climbed?", [
 "Summited Mount Whitney in 2019.",
 "Climbed Mount Rainier with a guided team, hardest thing I've done.",
 "Kilimanjaro via the Lemosho route for my 40th!",
 "Did Mont Blanc's Goûter route last summer.",
 "Rainier photos are finally printed and framed.",
], cur=[1, 2, 3, 4, 5], cv="Kilimanjaro")

I(F, "What are the known side effects I've had from my meds?", [
 "The metformin gave me stomach upset the first few weeks.",
 "Also noticed a metallic taste, doctor says it's common.",
 "Fatigue in the afternoons since starting the new beta blocker.",
 "Mentioned the metallic taste and the afternoon fatigue to Dr. Ruiz, she says both are common and not worrying.",
], cur=[1, 2, 3, 4], cv="metallic taste")

I(F, "What feeds does the threat-intel pipeline ingest?", [
 "Threat-intel pipeline ingests the AlienVault OTX feed to start.",
 "Hooked up abuse.ch URLhaus as a second source.",
 "Our ISAC sent us a STIX/TAXII endpoint, added it to the pipeline.",
 "Dedup stage merges indicators that appear in more than one feed.",
 "Added GreyNoise for scanner noise enrichment.",
], cur=[1, 2, 3, 5], cv="URLhaus")
