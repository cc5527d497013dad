DATA = [
("Do I drink coffee?", "decaf in the afternoon", [], [
 ("2024-06-03 09:00", "k", "I don't drink coffee after midday, it wrecks my sleep."),
 ("2024-06-10 15:30", "c", "A decaf in the afternoon is fine though, I have one most days at three."),
 ("2024-06-17 12:00", "k", "My morning coffee is a double espresso."),
 ("2024-06-25 20:00", "k", "Bought a new grinder for the espresso machine."),
]),
("Do I like cooking?", "baking bread", [], [
 ("2025-01-04 19:00", "k", "I hate cooking on weeknights, it always feels like a chore."),
 ("2025-01-11 11:00", "c", "But I love baking bread on Saturday mornings, it's relaxing."),
 ("2025-01-18 14:30", "k", "My sourdough starter is called Clint Yeastwood."),
 ("2025-02-01 09:10", "k", "We get a meal kit delivered for Monday to Wednesday."),
]),
("Do I drive on weekdays?", "take the train", [], [
 ("2024-04-01 08:00", "c", "On weekdays I never drive, I take the train into the city."),
 ("2024-04-06 10:30", "k", "At weekends I drive everywhere, usually to my parents' place."),
 ("2024-04-15 18:00", "k", "My season ticket covers the Reading to Paddington line."),
 ("2024-04-27 12:15", "k", "The car is a 2016 Honda Jazz."),
]),
("Am I a morning person?", "night owl", [], [
 ("2025-03-03 06:00", "k", "I get up at 5:30 for work, no choice about it."),
 ("2025-03-05 23:40", "c", "I'm a night owl really; if I could choose I'd sleep till ten."),
 ("2025-03-15 10:30", "k", "On Saturdays I sleep in as long as I can."),
 ("2025-03-20 21:00", "k", "Three alarms set every weekday."),
]),
("Do I eat meat?", "fish", [], [
 ("2024-10-02 12:00", "k", "I've been vegetarian for about five years now, no meat at all."),
 ("2024-10-08 19:30", "c", "Well, I do eat fish, so technically pescatarian."),
 ("2024-10-20 13:00", "k", "My favourite restaurant is the Lebanese place on Kingsway."),
 ("2024-11-03 18:45", "k", "I make a big lentil dal most Sundays."),
]),
("Do I enjoy crowds?", "festival", [], [
 ("2024-05-05 17:00", "k", "I really can't stand crowded shopping centres."),
 ("2024-05-12 21:00", "c", "Going to Green Man festival again this summer, the festival crowd is part of the fun."),
 ("2024-05-20 10:00", "k", "I do my shopping online whenever I can."),
 ("2024-06-01 08:30", "k", "Camping gear for the festival is already packed."),
]),
("Does the API allow unauthenticated access?", "/health", [], [
 ("2025-02-03 10:00", "k", "Every API endpoint requires a bearer token, no exceptions for data routes."),
 ("2025-02-05 14:00", "c", "The /health endpoint is public so the load balancer can probe it."),
 ("2025-02-12 11:30", "k", "Tokens are validated against the auth service's JWKS."),
 ("2025-02-25 16:00", "k", "Rate limits apply per token, not per IP."),
]),
("Do I watch TV?", "football", [], [
 ("2024-08-01 20:00", "k", "We got rid of the telly when we moved, I don't really watch TV anymore."),
 ("2024-08-10 15:00", "c", "Football is the one exception: I still stream every Arsenal game on the laptop."),
 ("2024-08-17 21:30", "k", "Reading a lot more since the telly went."),
 ("2024-09-02 19:00", "k", "The living room has a record player where the TV used to be."),
]),
("Do I like cold weather?", "skiing", [], [
 ("2024-12-02 08:00", "k", "I really dislike cold weather, winters here are miserable."),
 ("2024-12-09 19:00", "c", "Skiing is the exception, I love a week of skiing in the Alps every January."),
 ("2024-12-15 11:20", "k", "Heated gloves were the best purchase of the year."),
 ("2025-01-05 18:00", "k", "Our ski trip this year is to Les Arcs."),
]),
("Does the library allow food?", "café area", [], [
 ("2025-04-01 09:30", "k", "No food is allowed in the reading rooms at the city library."),
 ("2025-04-03 12:40", "c", "You can eat in the café area on the ground floor, and it's pretty good."),
 ("2025-04-10 16:00", "k", "The library is open until 8pm on weekdays."),
 ("2025-04-22 10:15", "k", "Study rooms have to be booked a day in advance."),
]),
("Do I use social media?", "LinkedIn", [], [
 ("2024-03-01 12:00", "k", "I'm off social media entirely, deleted Facebook and Instagram last year."),
 ("2024-03-08 09:00", "c", "I do keep LinkedIn for work, but I only log in to reply to messages."),
 ("2024-03-20 19:30", "k", "Feel much calmer without the feeds."),
 ("2024-04-02 08:15", "k", "I use WhatsApp to stay in touch with family."),
]),
("Do I exercise indoors?", "swimming", [], [
 ("2024-07-03 18:00", "k", "I hate gyms, treadmills and machines bore me to death."),
 ("2024-07-06 07:30", "c", "Indoor swimming is different though, I go to the leisure centre pool three mornings a week."),
 ("2024-07-14 10:00", "k", "Outdoors I mostly cycle."),
 ("2024-07-28 19:00", "k", "My swim goggles keep fogging up."),
]),
]
