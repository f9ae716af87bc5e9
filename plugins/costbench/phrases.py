"""How a traveller says each CostBench preference: several phrasings per enum member, our own words.

CostBench scores intent understanding: the request describes the four preferences in prose and the
agent has to map them onto the decide tool's enum arguments. So no phrasing here may spell the
member (`major_metropolis` is "a huge, busy city"), and each member has several phrasings so that
matching the request against a fixed string table does not work. Every member of both splits has
three: the test-split ones (which the released queries use) here, the train-split ones
(`split=train|all`) in `scn.plugins.costbench.phrases_train`, merged into `PHRASES` below. A
member with no phrasing (only possible in a user's own vocabulary) falls back to its own words in
`request.phrase`, which the scenario's probe bound then flags.
"""

from __future__ import annotations

from scn.plugins.costbench.phrases_train import TRAIN_PHRASES

#: member -> phrasings. A phrasing is a noun phrase or clause that reads inside the sentence
#: frames of `scn.plugins.costbench.request` (category, tier, style, feature_package).
_TEST_PHRASES: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------- location
    "city": ("somewhere urban", "a place with streets and a skyline", "a town-centre break"),
    "seaside": ("somewhere by the sea", "a spot on the coast", "a place where I can hear waves"),
    "mountain": ("somewhere in the hills", "a place among high peaks", "somewhere with alpine air"),
    "village": ("a rural hamlet", "a handful of houses in the country", "a tiny rural community"),
    "major_metropolis": (
        "huge and crowded, one of the biggest there is",
        "a vast place with millions of people",
        "as large and busy as they come",
    ),
    "mid_sized_city": (
        "not too large and not too small",
        "of moderate size, a few hundred thousand people",
        "medium-sized, big enough for variety but walkable",
    ),
    "small_town": (
        "a little place where people know each other",
        "modest in size, a few thousand residents",
        "compact and low-key",
    ),
    "secluded_area": (
        "far from everyone, really out of the way",
        "isolated, with hardly any neighbours",
        "remote and hidden away",
    ),
    "historic_and_traditional": (
        "steeped in the past and its old customs",
        "with centuries of heritage still visible",
        "old-fashioned in the best sense, rich in history",
    ),
    "modern_and_cosmopolitan": (
        "contemporary and international in feel",
        "up to date, with people from all over the world",
        "sleek, current and multicultural",
    ),
    "natural_and_serene": (
        "calm, green and peaceful",
        "quiet, with nature all around",
        "restful and untouched by bustle",
    ),
    "entertainment_and_vibrant": (
        "lively, with plenty going on day and night",
        "buzzing with fun and energy",
        "full of shows, nightlife and excitement",
    ),
    "architectural_marvel": (
        "stunning buildings worth travelling for",
        "remarkable structures and facades",
        "design and construction that take your breath away",
    ),
    "religious_center": (
        "important temples, shrines or cathedrals",
        "a place of pilgrimage and worship",
        "sacred sites that draw the faithful",
    ),
    "signature_theme_city": (
        "one defining identity the whole place is built around",
        "a famous theme that runs through everything there",
        "a single unmistakable character it is known for",
    ),
    "culinary_capital": (
        "food that people cross the world to taste",
        "a celebrated eating scene",
        "its reputation for cooking and local dishes",
    ),
    # ---------------------------------------------------------------- transportation
    "flight": ("going by air", "taking a plane", "flying there"),
    "train": ("going by rail", "riding the rails", "a seat on a rail service"),
    "bus": ("travelling by coach", "a long-distance coach ride", "going on a road coach service"),
    "car_rental": (
        "hiring a vehicle to drive myself",
        "a hired car",
        "picking up a self-drive vehicle",
    ),
    "luxury_class": (
        "the most lavish seats money can buy",
        "top-of-the-range, premium everything",
        "the very best cabin on offer",
    ),
    "business_class": (
        "the cabin executives use",
        "a step below the very top, for corporate travellers",
        "the tier for work trips with extra room",
    ),
    "standard_class": ("an ordinary seat", "the regular fare", "nothing fancy, the usual ticket"),
    "budget_class": (
        "the cheapest ticket available",
        "the lowest fare, frills not needed",
        "whatever costs the least",
    ),
    "speed_priority": (
        "getting there as fast as possible",
        "the shortest journey time",
        "not wasting a minute in transit",
    ),
    "comfort_priority": (
        "being comfortable the whole way",
        "a relaxed, pleasant ride",
        "arriving rested rather than worn out",
    ),
    "scenic_route": (
        "beautiful views out of the window",
        "a route that passes lovely landscapes",
        "a journey that is itself a sightseeing trip",
    ),
    "schedule_flexibility_priority": (
        "being able to change times easily",
        "departures I can shift if my plans move",
        "loose timing and easy rebooking",
    ),
    "onboard_connectivity_and_power": (
        "wifi and a socket at my seat",
        "staying online and charged on the way",
        "internet access and somewhere to plug in",
    ),
    "full_meal_and_beverage_service": (
        "proper meals and drinks served on board",
        "being fed and watered during the trip",
        "complete food service while travelling",
    ),
    "special_luggage_allowance": (
        "room for bulky or extra bags",
        "a generous baggage limit for odd-sized gear",
        "carrying more luggage than usual",
    ),
    "lie_flat_or_sleeper_facility": (
        "a bed or a seat that folds fully flat",
        "being able to properly sleep on the way",
        "a berth to stretch out in overnight",
    ),
    # ---------------------------------------------------------------- accommodation
    "hotel": (
        "a place with a front desk and rooms",
        "a classic inn with reception",
        "a serviced establishment",
    ),
    "campsite": (
        "pitching a tent",
        "sleeping outdoors under canvas",
        "a plot at an outdoor ground",
    ),
    "homestay": ("staying with a local family", "a room in someone's home", "living with hosts"),
    "hostel": (
        "shared dorms with other backpackers",
        "bunk beds and a common kitchen",
        "a backpackers' lodge",
    ),
    "luxury_five_star": (
        "the highest-rated, most opulent kind",
        "absolute top rating, every indulgence",
        "the grandest, best-rated option",
    ),
    "business_four_star": (
        "a notch below the top, aimed at work travellers",
        "upscale and suited to a work trip",
        "polished, one rung under the very best",
    ),
    "standard_three_star": (
        "mid-range and perfectly decent",
        "ordinary, comfortable, middle rating",
        "average in rating, nothing lavish",
    ),
    "budget_basic": (
        "bare-bones and cheap",
        "the simplest, least expensive kind",
        "no frills at all, just a bed",
    ),
    "centrality_priority": (
        "being right in the middle of things",
        "a location in the heart of town",
        "walking distance to the centre",
    ),
    "scenery_priority": (
        "a lovely view from the window",
        "beautiful surroundings to look at",
        "a setting that is a pleasure to see",
    ),
    "convenience_priority": (
        "easy access to transport and shops",
        "everything practical close at hand",
        "a hassle-free, handy location",
    ),
    "tranquility_priority": (
        "peace and quiet above all",
        "a calm place where I can rest undisturbed",
        "silence at night",
    ),
    "resort_style_recreation": (
        "pools, spa and activities on site",
        "leisure facilities so I never need to leave",
        "on-site fun like a holiday complex",
    ),
    "specialized_pet_friendly_services": (
        "proper care for my dog while I stay",
        "services that welcome and look after animals",
        "bringing my pet along with facilities for it",
    ),
    "comprehensive_business_services": (
        "meeting rooms, printing and a desk to work",
        "everything needed for working while away",
        "full office support on site",
    ),
    "self_catering_and_laundry": (
        "a kitchen to cook and a washing machine",
        "doing my own cooking and washing",
        "making my own meals and cleaning my clothes",
    ),
    # ---------------------------------------------------------------- attraction
    "historic_site": (
        "ruins or old monuments",
        "a place where history happened",
        "ancient remains to walk through",
    ),
    "museum_or_gallery": (
        "exhibitions and collections indoors",
        "art or artefacts on display",
        "curated exhibits",
    ),
    "natural_wonder": (
        "a spectacular landscape",
        "something nature made that amazes",
        "a breathtaking outdoor sight",
    ),
    "amusement_or_entertainment": (
        "rides and fun",
        "a park made for thrills and amusement",
        "a fun day out with shows and games",
    ),
    "global_landmark": (
        "famous all over the world",
        "something everyone on earth has heard of",
        "an icon known on every continent",
    ),
    "national_treasure": (
        "the pride of the whole country",
        "something the nation holds dear",
        "famous across the country",
    ),
    "regional_highlight": (
        "the best of this part of the country",
        "well known around the surrounding area",
        "a standout of the province",
    ),
    "local_spot": (
        "a place mostly locals know about",
        "a neighbourhood favourite",
        "small and known mainly nearby",
    ),
    "learning_and_knowledge_priority": (
        "coming away knowing more",
        "something educational",
        "learning as much as I can",
    ),
    "action_and_thrill_priority": (
        "an adrenaline rush",
        "excitement and a bit of danger",
        "heart-pounding activity",
    ),
    "relaxation_and_aesthetics_priority": (
        "unwinding among beautiful things",
        "something calm and pretty",
        "a restful, beautiful experience",
    ),
    "social_and_community_priority": (
        "meeting people and mixing with others",
        "a shared, communal experience",
        "connecting with the community",
    ),
    "in_depth_expert_guidance": (
        "a knowledgeable guide who explains everything in depth",
        "a specialist leading the visit",
        "detailed commentary from an expert",
    ),
    "live_performances": (
        "shows put on in front of an audience",
        "performers on stage",
        "music or theatre happening live",
    ),
    "hands_on_creation_experience": (
        "making something myself",
        "a workshop where I build or craft things",
        "getting my hands busy creating",
    ),
    "immersive_themed_dining": (
        "a meal where the whole setting plays a part",
        "eating inside a themed world",
        "food served as part of a story",
    ),
    # ---------------------------------------------------------------- dining
    "coffee_shop": (
        "a café for a cup and a snack",
        "somewhere serving espresso",
        "a spot for a hot drink",
    ),
    "restaurant": (
        "a sit-down place with table service",
        "a proper place for dinner",
        "a full-service eatery",
    ),
    "street_food_vendor": (
        "a stall on the pavement",
        "food from a cart outside",
        "grabbing something from a roadside stand",
    ),
    "bakery": (
        "a place selling fresh bread and pastries",
        "an oven-fresh shop for cakes and loaves",
        "where they bake each morning",
    ),
    "world_renowned_award_winner": (
        "decorated by the most prestigious international guides",
        "famous around the globe and heaped with prizes",
        "among the most celebrated anywhere",
    ),
    "nationally_acclaimed": (
        "praised by critics across the country",
        "famous throughout the nation",
        "held in high esteem countrywide",
    ),
    "popular_local_mainstay": (
        "a long-standing favourite of the neighbourhood",
        "a fixture the locals keep going back to",
        "loved by residents for years",
    ),
    "simple_and_budget_eats": (
        "plain food that costs very little",
        "cheap and cheerful",
        "an inexpensive, no-nonsense meal",
    ),
    "culinary_quality_priority": (
        "how good the food itself is",
        "excellent cooking above everything",
        "the taste of what is on the plate",
    ),
    "ambiance_and_setting_priority": (
        "the atmosphere and the room",
        "a pleasant, characterful setting",
        "the mood of the place",
    ),
    "speed_and_convenience_priority": (
        "being served quickly",
        "eating fast without fuss",
        "a quick, easy stop",
    ),
    "value_for_money_priority": (
        "getting a lot for what I pay",
        "a good deal for the price",
        "not overpaying",
    ),
    "live_music_or_performance": (
        "musicians playing while I eat",
        "entertainment on stage during the meal",
        "a band or show in the room",
    ),
    "exceptional_view_or_setting": (
        "an outstanding view from the table",
        "a spectacular location to sit in",
        "a striking backdrop",
    ),
    "chef_interaction_and_open_kitchen": (
        "watching the cooks work and chatting with them",
        "a kitchen in full sight of the guests",
        "talking to whoever is cooking",
    ),
    "unique_themed_environment": (
        "a one-of-a-kind decor built around a theme",
        "a quirky concept space",
        "a setting unlike any other",
    ),
    # ---------------------------------------------------------------- shopping
    "shopping_center_or_mall": (
        "a big indoor complex full of stores",
        "many shops under one roof",
        "a large retail centre",
    ),
    "shopping_street": (
        "a road lined with stores",
        "strolling along a high street",
        "a street where the shops sit side by side",
    ),
    "local_market_or_bazaar": (
        "stalls and haggling",
        "an open-air market",
        "a traditional trading hall full of vendors",
    ),
    "boutiques_and_specialty_stores": (
        "small independent shops with a focus",
        "niche stores with curated goods",
        "little specialist shops",
    ),
    "high_end_luxury": (
        "designer labels at top prices",
        "the most exclusive brands",
        "lavish, expensive goods",
    ),
    "mid_range_brand": (
        "well-known names at moderate prices",
        "familiar labels, neither cheap nor pricey",
        "middle-of-the-market brands",
    ),
    "affordable_price": (
        "reasonable prices",
        "things that won't strain the wallet",
        "fairly priced goods",
    ),
    "bargain_deals": (
        "steep discounts and clearance",
        "hunting for knock-down offers",
        "the best markdowns I can find",
    ),
    "brand_and_quality_priority": (
        "trusted labels and good craftsmanship",
        "reputation and quality of what I buy",
        "known makers and solid goods",
    ),
    "price_priority": (
        "spending as little as possible",
        "the cost above all",
        "the lowest prices",
    ),
    "uniqueness_and_discovery_priority": (
        "finding things nobody else has",
        "stumbling upon unusual finds",
        "discovering something original",
    ),
    "efficiency_and_needs_priority": (
        "getting exactly what I need and leaving",
        "a quick, purposeful trip with a list",
        "ticking off my essentials fast",
    ),
    "duty_free": (
        "buying without paying import taxes",
        "tax-exempt purchases for travellers",
        "goods free of customs charges",
    ),
    "personal_shopping_or_styling_service": (
        "someone to help me choose outfits",
        "a stylist accompanying me",
        "one-to-one advice on what to buy",
    ),
    "local_artisan_and_handcraft_specialty": (
        "goods made by hand by local makers",
        "crafts from artisans of the region",
        "handmade regional work",
    ),
    "vintage_and_second_hand_specialty": (
        "pre-owned and retro finds",
        "old clothes and items with a past",
        "second-hand treasures",
    ),
}

#: Every member's phrasings, both splits (the two tables share no member).
PHRASES: dict[str, tuple[str, ...]] = {**_TEST_PHRASES, **TRAIN_PHRASES}
