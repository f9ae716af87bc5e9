"""How a traveller says each train-split CostBench preference: three phrasings per member.

The train vocabulary (`split=train|all`) needs the same treatment as the test one in
`scn.plugins.costbench.phrases`: with no phrasing, a request would spell the member and every
shortcut probe would pass it. So each train member has three phrasings, our own words, none using
a word of the member's name or of a sibling member's name in the same dimension. Kept apart from
the test phrasings only for module size; `phrases.PHRASES` merges both.
"""

from __future__ import annotations

#: member -> phrasings, read inside the frames of `scn.plugins.costbench.request`.
TRAIN_PHRASES: dict[str, tuple[str, ...]] = {
    # ---------------------------------------------------------------- location
    "forest": (
        "somewhere among tall trees",
        "a place deep in the woods",
        "a spot under a thick green canopy",
    ),
    "island": (
        "a piece of land with water on every side",
        "somewhere surrounded by ocean that I reach by boat",
        "an isle cut off from the mainland",
    ),
    "desert": (
        "somewhere hot, dry and sandy",
        "a land of dunes and cacti",
        "an arid place with almost no rain",
    ),
    "countryside": (
        "rolling farmland and fields",
        "meadows, barns and grazing cattle",
        "green pastures far from any town",
    ),
    "suburb": (
        "a leafy residential neighbourhood on the edge of town",
        "the quiet outskirts where commuters live",
        "streets of houses and gardens just outside the centre",
    ),
    "historical_district": (
        "the old quarter, with cobbled lanes",
        "a neighbourhood of centuries-old buildings",
        "the preserved old part of town",
    ),
    "regional_hub": (
        "the main centre everything nearby depends on",
        "the place the surrounding province revolves around",
        "the central node for the whole surrounding province",
    ),
    "coastal_resort": (
        "a holiday spot on the shore built for visitors",
        "a beach getaway made for tourists",
        "a seafront holiday destination",
    ),
    "remote_outpost": (
        "a frontier settlement at the edge of the map",
        "a lonely station miles from anywhere",
        "the last inhabited stop before the wilderness",
    ),
    "bustling_capital": (
        "the seat of the national government, full of energy",
        "where the country is governed, crowded and lively",
        "the nation's chief seat of power, always busy",
    ),
    "suburban_sprawl": (
        "endless housing estates and strip malls",
        "low-density neighbourhoods stretching for miles",
        "a spread-out belt of houses beyond the centre",
    ),
    "quaint_village": (
        "a charming little hamlet with old cottages",
        "a picture-postcard cluster of cottages",
        "a sweet, old-world rural settlement",
    ),
    "bohemian_and_artsy": (
        "free-spirited, with painters and musicians everywhere",
        "unconventional and full of studios",
        "offbeat, with galleries and a counter-culture feel",
    ),
    "academic_and_scholarly": (
        "intellectual, with universities and libraries",
        "a student atmosphere full of lecture halls",
        "bookish and learned, around old colleges",
    ),
    "industrial_and_edgy": (
        "gritty, with converted factories and warehouses",
        "raw and a bit rough, old mills turned into bars",
        "urban grit among former workshops",
    ),
    "family_friendly": (
        "good for bringing the children along",
        "welcoming to parents with kids",
        "easy going for a trip with little ones",
    ),
    "adventurous_and_wild": (
        "rugged and untamed, for the daring",
        "untouched terrain with risks to take",
        "bold, rough landscapes for thrill-seekers",
    ),
    "luxurious_and_exclusive": (
        "upmarket and only for the privileged few",
        "lavish, glamorous and hard to get into",
        "opulent and reserved for a select clientele",
    ),
    "unesco_world_heritage": (
        "sites on the international list of protected cultural treasures",
        "a place the global community has listed for preservation",
        "monuments officially protected for all humanity",
    ),
    "major_tech_hub": (
        "start-ups and big software companies",
        "a cluster of digital innovators and engineers",
        "the headquarters of computing firms",
    ),
    "renowned_nightlife": (
        "clubs and bars that stay open till dawn",
        "famous parties after dark",
        "dancing until sunrise in celebrated venues",
    ),
    "fashion_and_design_hotspot": (
        "runway shows and trend-setting studios",
        "the place where clothing trends are born",
        "couture houses and stylish ateliers",
    ),
    "center_for_performing_arts": (
        "great theatres, opera and ballet",
        "a stage scene with concerts and drama every night",
        "top-class orchestras and dance companies",
    ),
    "gateway_to_nature_reserves": (
        "easy trips out to protected parks and wildlife",
        "a starting point for national parks",
        "the doorstep of sanctuaries for animals and plants",
    ),
    # ---------------------------------------------------------------- transportation
    "ferry": (
        "crossing the water by boat",
        "a passenger boat across the strait",
        "sailing over on a vessel that carries cars and foot passengers",
    ),
    "subway_or_metro": (
        "the underground network beneath the streets",
        "going by the tube",
        "rapid transit running in tunnels under town",
    ),
    "ride_sharing": (
        "booking a driver through an app",
        "hailing a lift on my phone",
        "an app-booked lift with a stranger at the wheel",
    ),
    "tram": (
        "a streetcar running on tracks along the road",
        "the trolley line through town",
        "an electric streetcar gliding down the avenues",
    ),
    "bicycle_rental": (
        "hiring a bike to pedal around",
        "a pedal bike I pick up from a dock",
        "cycling on a borrowed two-wheeler",
    ),
    "private_charter": (
        "a plane or boat booked just for my group",
        "an exclusive hire for our party alone",
        "a vessel that nobody else boards but us",
    ),
    "first_class": (
        "the top tier of seats at the front",
        "the most exclusive compartment aboard",
        "the highest grade of ticket",
    ),
    "premium_economy": (
        "a separate section with wider seats, below the executive tier",
        "the upgraded seats between the cheapest and the corporate ones",
        "wider seats in their own section, a level above the cheapest",
    ),
    "economy_plus": (
        "an ordinary seat with a few extra inches",
        "the basic fare with a few add-ons like more space",
        "a regular seat nudged up with some small perks",
    ),
    "sleeper_cabin": (
        "a closed compartment with bunks for the night",
        "my own little bedroom on an overnight service",
        "bunks behind a door on a night journey",
    ),
    "shared_ride": (
        "a pooled lift with strangers",
        "a car I split with others heading the same direction",
        "carpooling with fellow passengers",
    ),
    "private_vehicle": (
        "a car just for me with nobody else aboard",
        "my own exclusive car and driver",
        "an automobile reserved solely for my party",
    ),
    "cost_effective_priority": (
        "good value for every euro spent getting there",
        "the best value for the fare",
        "keeping the fare sensible for what I get",
    ),
    "eco_friendly_travel": (
        "keeping my carbon footprint low",
        "the greenest way to get around",
        "harming the environment as little as possible",
    ),
    "direct_route_only": (
        "no changes or connections at all",
        "going straight there without transfers",
        "one single leg with no transfers",
    ),
    "multi_stop_journey": (
        "breaking the trip into several legs with pauses along the way",
        "several stopovers on the way",
        "hopping between a few places before arriving",
    ),
    "off_peak_travel": (
        "going when it's quiet, outside rush hour",
        "avoiding the busiest times",
        "quieter, less crowded departure times",
    ),
    "last_minute_booking": (
        "reserving right before leaving",
        "sorting tickets out just shortly before departure",
        "buying my seat on the day itself",
    ),
    "priority_boarding": (
        "getting on before everyone else",
        "being let through the gate first",
        "jumping the queue at the gate",
    ),
    "lounge_access": (
        "a comfortable waiting room with snacks before departure",
        "somewhere quiet to relax at the terminal before leaving",
        "entry to the exclusive waiting area at the station or airport",
    ),
    "extra_legroom_seating": (
        "more space for my knees",
        "room to stretch my legs out",
        "a seat with plenty of space in front of it",
    ),
    "pet_travel_option": (
        "bringing my dog or cat along",
        "taking an animal companion with me",
        "a way for my furry friend to come too",
    ),
    "onboard_entertainment_system": (
        "films and games on a screen at my seat",
        "movies to watch on the way",
        "a personal screen with shows to pass the time",
    ),
    "dedicated_family_section": (
        "an area set aside for parents and children",
        "a zone reserved for people with kids in tow",
        "seats grouped for households with little ones",
    ),
    # ---------------------------------------------------------------- accommodation
    "resort": (
        "a self-contained holiday complex with pools and restaurants",
        "a sprawling leisure property where everything is on the grounds",
        "a big holiday complex by the beach or the slopes",
    ),
    "motel": (
        "a roadside inn where I park outside my door",
        "a cheap stop by the highway for drivers",
        "a low-rise lodging along the road with parking at the door",
    ),
    "vacation_rental": (
        "a whole flat or house rented just for the holiday",
        "a place of my own booked from an owner for the week",
        "a holiday home to myself",
    ),
    "bed_and_breakfast": (
        "a small inn that serves a morning meal",
        "a room in a cosy house with the first meal of the day included",
        "a little place where the owners cook me eggs in the morning",
    ),
    "guesthouse": (
        "a modest lodging run by its owners, no meals included",
        "a simple house with a handful of rooms for visitors",
        "a small owner-run inn with basic rooms",
    ),
    "apartment_hotel": (
        "a serviced flat with a kitchenette and a reception",
        "suites with their own kitchen plus daily housekeeping and a front desk",
        "a flat-style unit inside a managed building with a lobby",
    ),
    "ultra_luxury_suite": (
        "the most extravagant rooms in the building, nothing spared",
        "a palatial penthouse with a personal butler",
        "an over-the-top top-floor apartment, money no object",
    ),
    "boutique_charming": (
        "small, stylish and full of character",
        "an intimate, individually decorated place with personality",
        "a delightful little design-led property",
    ),
    "economy_reliable": (
        "inexpensive but dependable",
        "cheap, consistent and no surprises",
        "low-cost and trustworthy",
    ),
    "backpacker_dormitory": (
        "a bunk in a shared sleeping room",
        "a bed among strangers in a big shared room",
        "the cheapest bunk in a room for eight",
    ),
    "family_suite": (
        "connected rooms big enough for parents and kids",
        "space for the whole household, children included",
        "a large unit with extra beds for the little ones",
    ),
    "extended_stay": (
        "set up for living there for weeks",
        "suited to a months-long visit",
        "a place designed for long-term guests",
    ),
    "beachfront_access": (
        "stepping straight from my room onto the sand",
        "the sea right at the door",
        "being right on the shore",
    ),
    "ski_in_ski_out": (
        "gliding to my door straight off the slopes",
        "going from the pistes to my room on snow",
        "lifts and runs right outside the entrance",
    ),
    "nightlife_access_priority": (
        "clubs and bars a short walk away",
        "being close to where the parties are",
        "lively evenings right on my doorstep",
    ),
    "historic_building_stay": (
        "sleeping in a centuries-old property",
        "a converted castle, manor or old mansion",
        "rooms inside a landmark from another era",
    ),
    "eco_lodge_experience": (
        "a green, low-impact retreat in nature",
        "a sustainable cabin that treads lightly on the land",
        "an environmentally minded retreat",
    ),
    "business_district_proximity": (
        "being near the offices and corporate towers",
        "a short walk from the financial quarter",
        "close to where the companies have their headquarters",
    ),
    "all_inclusive_packages": (
        "meals and drinks covered by one up-front price",
        "one price that includes every meal and drink",
        "food, drinks and activities already paid for",
    ),
    "spa_and_wellness_center": (
        "massages, saunas and treatments",
        "a place to be pampered with steam baths and therapies",
        "body treatments and a sauna to unwind",
    ),
    "rooftop_bar_or_pool": (
        "drinks or a swim up on the top floor",
        "a terrace high above the street for cocktails or a dip",
        "a swim with a view at the very top of the building",
    ),
    "free_airport_shuttle": (
        "a complimentary transfer to and from the terminal",
        "being picked up at arrivals at no charge",
        "a courtesy minibus to my flight",
    ),
    "24_hour_room_service": (
        "food brought to my door at any time of day or night",
        "ordering meals up to my bedroom around the clock",
        "in-suite dining whenever I'm hungry, even at 3 a.m.",
    ),
    "on_site_parking": (
        "somewhere to leave my car right at the property",
        "a space for my car on the premises",
        "a garage where I can keep the car during my visit",
    ),
    # ---------------------------------------------------------------- attraction
    "zoo_or_aquarium": (
        "animals and sea creatures to watch",
        "enclosures full of wildlife or tanks of fish",
        "seeing lions, penguins or sharks up close",
    ),
    "botanical_garden": (
        "greenhouses and collections of rare plants",
        "rows of labelled flowers and trees",
        "a glasshouse full of exotic plants",
    ),
    "sports_stadium": (
        "a huge arena where teams play matches",
        "watching a match from the stands",
        "a ground packed with cheering fans",
    ),
    "theater_or_concert_hall": (
        "an auditorium for plays or orchestras",
        "a venue with a stage and rows of velvet seats",
        "a playhouse or a symphony venue",
    ),
    "public_park": (
        "open green space anyone can stroll in",
        "lawns and paths open to everyone in town",
        "a common where locals picnic and walk",
    ),
    "famous_bridge": (
        "a well-known crossing over a river",
        "a celebrated span across the water",
        "a span over the water that everybody photographs",
    ),
    "iconic_must_see": (
        "something no visitor should skip",
        "the thing every first-timer has to go to",
        "the unmissable sight of the trip",
    ),
    "hidden_gem": (
        "a secret few tourists ever find",
        "an overlooked delight off the beaten track",
        "little known but wonderful, a real discovery",
    ),
    "community_favorite": (
        "something residents adore and keep recommending",
        "beloved by the people who live around it",
        "what the townsfolk rave about",
    ),
    "award_winning_venue": (
        "a place that has collected prizes",
        "recognised with trophies and honours",
        "decorated with industry accolades",
    ),
    "culturally_significant": (
        "important to the identity and traditions of the people",
        "meaningful for the heritage of its people",
        "deeply tied to the customs of the people here",
    ),
    "instagrammable_spot": (
        "photogenic, perfect for pictures to post online",
        "a backdrop made for social media photos",
        "so pretty it's all over people's feeds",
    ),
    "family_and_kids_priority": (
        "something the children will enjoy",
        "fun for parents and little ones together",
        "keeping the youngsters entertained",
    ),
    "romantic_and_scenic_priority": (
        "a beautiful place to share with my partner",
        "pretty views for a couple",
        "a lovely, intimate outing for two",
    ),
    "adventure_and_sports_priority": (
        "getting active outdoors, climbing or paddling",
        "physical challenges and athletic activity",
        "a workout with some daring to it",
    ),
    "culinary_and_taste_priority": (
        "flavours and food from the area",
        "eating my way through it",
        "sampling dishes and drinks",
    ),
    "artistic_and_creative_priority": (
        "art, craft and imagination",
        "painting, sculpture and inventive work",
        "inspiration from painters and makers",
    ),
    "historical_and_cultural_priority": (
        "the past and the traditions of the place",
        "old heritage and customs",
        "stories of bygone eras and how people lived",
    ),
    "behind_the_scenes_tour": (
        "a look at the parts usually closed to visitors",
        "seeing what goes on backstage",
        "going where the public normally can't",
    ),
    "virtual_reality_experience": (
        "putting on a headset to explore a simulated world",
        "a digital simulation I can step into",
        "goggles that take me into a computer-made place",
    ),
    "seasonal_special_events": (
        "festivities that happen only at certain times of year",
        "one-off celebrations tied to the time of year",
        "holiday-season happenings",
    ),
    "skip_the_line_access": (
        "not having to queue at the entrance",
        "walking straight past the waiting crowds",
        "fast-track entry",
    ),
    "photography_workshop": (
        "a class on taking better pictures",
        "lessons with my camera from a pro",
        "learning to shoot great photos",
    ),
    "meet_the_artist_or_curator": (
        "talking with the person who made or chose the works",
        "a chat with the creator or the collection's keeper",
        "a conversation with whoever put the exhibition together",
    ),
    # ---------------------------------------------------------------- dining
    "food_truck": (
        "a kitchen on wheels parked by the kerb",
        "a van serving meals through a hatch",
        "lunch from a converted vehicle with a serving window",
    ),
    "bistro": (
        "a small, relaxed French-style eatery",
        "a cosy neighbourhood place with a chalkboard menu",
        "a casual little spot with simple classic dishes",
    ),
    "fine_dining": (
        "an elegant multi-course meal with white tablecloths",
        "a formal, upscale place with a sommelier",
        "haute cuisine in a refined room",
    ),
    "pub_or_bar": (
        "somewhere to have a pint or a drink",
        "a tavern with beer on tap",
        "a place that's mainly about drinks, with a few snacks",
    ),
    "diner": (
        "a retro roadside joint with booths and all-day breakfast",
        "a classic American-style counter with burgers and milkshakes",
        "greasy-spoon comfort dishes at a counter",
    ),
    "food_court": (
        "a hall of many counters sharing common seating",
        "lots of fast stalls around shared tables in a mall",
        "a cluster of quick counters with seats in the middle",
    ),
    "michelin_starred": (
        "a place the red guidebook's inspectors have honoured",
        "holding the famous tyre-company rosettes",
        "recognised by the red guide's anonymous inspectors",
    ),
    "celebrity_chef_owned": (
        "run by a cook who's famous on television",
        "the place of a star TV cook",
        "belonging to a cook everyone knows from TV",
    ),
    "critically_acclaimed": (
        "glowing reviews from food writers",
        "raved about in the press",
        "highly rated by professional reviewers",
    ),
    "underground_favorite": (
        "a cult place known by word of mouth",
        "an in-the-know place with no sign on the door",
        "a secret that insiders pass around",
    ),
    "family_run_eatery": (
        "a place staffed by one household, parents and children",
        "kept by the same clan for generations",
        "where grandma cooks and the kids wait tables",
    ),
    "quick_service_chain": (
        "a fast-food franchise with branches everywhere",
        "a branded counter outlet found in every town",
        "one of those identical fast outlets on every corner",
    ),
    "authenticity_and_tradition_priority": (
        "recipes cooked the way they always have been",
        "genuine dishes true to their origins",
        "the real, time-honoured cuisine of the place",
    ),
    "innovation_and_fusion_priority": (
        "inventive cooking that mixes cuisines",
        "bold new combinations from kitchens around the world",
        "experimental dishes blending cultures",
    ),
    "local_and_seasonal_ingredients": (
        "produce from nearby farms picked at its best",
        "whatever is fresh this time of year from the region",
        "menus that change with the harvest",
    ),
    "healthy_and_organic_options": (
        "wholesome, pesticide-free dishes",
        "nutritious food grown without chemicals",
        "light, clean eating that's good for my body",
    ),
    "family_friendly_atmosphere": (
        "a place where children are welcome and there's a kids' menu",
        "somewhere relaxed enough for toddlers and high chairs",
        "welcoming to parents with young ones",
    ),
    "late_night_dining": (
        "being able to eat after midnight",
        "a kitchen that stays open into the small hours",
        "a meal well after the usual hours",
    ),
    "outdoor_seating_or_patio": (
        "eating outside in the fresh air",
        "a terrace or garden to sit in",
        "al fresco chairs under a parasol",
    ),
    "private_dining_rooms": (
        "a separate space just for our group",
        "a closed-off area where our party eats alone",
        "an exclusive chamber away from other guests",
    ),
    "tasting_menu_experience": (
        "a long sequence of small courses picked by the house",
        "many little dishes in a set progression",
        "a multi-course sampling journey",
    ),
    "extensive_wine_list": (
        "a huge cellar of bottles to choose from",
        "a sommelier with hundreds of vintages",
        "a vast selection of reds and whites",
    ),
    "farm_to_table_concept": (
        "ingredients coming straight from the grower to my plate",
        "produce sourced directly from nearby growers",
        "food traced from the field to the plate",
    ),
    "cooking_class_offering": (
        "a lesson where I learn to make the dishes",
        "being taught to prepare the recipes myself",
        "a session where an instructor shows me how the meals are made",
    ),
    # ---------------------------------------------------------------- shopping
    "department_store": (
        "a big multi-floor emporium selling a bit of everything",
        "one huge building with a floor for each kind of goods",
        "a grand old emporium with cosmetics on the ground floor",
    ),
    "outlet_mall": (
        "a complex of factory-direct brand sellers with reduced prices",
        "last season's branded goods sold cheaply in a retail park",
        "a cluster of discounted brand warehouses out of town",
    ),
    "flea_market": (
        "stalls of second-hand junk and curios",
        "rummaging through tables of used odds and ends",
        "a weekend sale of old bric-a-brac",
    ),
    "antique_shop": (
        "a dealer in old furniture and collectibles",
        "a place full of centuries-old objects for sale",
        "period pieces and heirlooms to buy",
    ),
    "concept_store": (
        "a curated lifestyle space mixing design, books and clothes",
        "a carefully themed retail space with a strong point of view",
        "an editorial-style space mixing gadgets, clothes and art",
    ),
    "pop_up_shop": (
        "a temporary seller that's here for a few weeks only",
        "a short-lived retail space that will vanish soon",
        "a limited-time stand set up in an empty unit",
    ),
    "designer_couture": (
        "made-to-measure garments from the great maisons",
        "runway labels and bespoke tailoring",
        "hand-finished gowns from famous ateliers",
    ),
    "premium_mainstream": (
        "polished mass-market labels at the upper end",
        "widely sold names with a better finish",
        "popular labels a cut above the average",
    ),
    "fast_fashion": (
        "cheap, trendy clothes that change every few weeks",
        "the latest looks at throwaway prices",
        "quick-turnover trendy apparel",
    ),
    "secondhand_and_thrift": (
        "pre-loved goods from charity shops",
        "used items at a fraction of the original cost",
        "rummaging through donated clothes",
    ),
    "artisan_and_craft": (
        "items shaped one at a time by skilled makers",
        "pieces someone produced in their own studio",
        "small-batch work of independent makers",
    ),
    "discount_and_clearance": (
        "end-of-line stock sold off at reduced prices",
        "leftover inventory the seller wants gone",
        "last units of discontinued lines at cut prices",
    ),
    "experience_and_entertainment_priority": (
        "making the outing itself fun, with things to do and see",
        "an enjoyable day out, not just buying",
        "a fun outing with activities between purchases",
    ),
    "local_products_priority": (
        "goods made in the region",
        "things produced right here rather than imported",
        "regional wares from nearby makers",
    ),
    "ethical_and_sustainable_priority": (
        "buying responsibly, fair trade and low waste",
        "goods that treat workers and the planet well",
        "a clear conscience about where things come from",
    ),
    "gift_and_souvenir_hunting": (
        "picking up presents and mementos to bring home",
        "keepsakes for friends back home",
        "finding presents to take back for people",
    ),
    "window_shopping_and_browsing": (
        "wandering and looking, with no plan to buy",
        "strolling past displays just for the pleasure of it",
        "looking around at leisure rather than purchasing",
    ),
    "specific_item_search": (
        "tracking down one particular thing I'm after",
        "finding the one exact article I already have in mind",
        "locating a particular piece I've been after for ages",
    ),
    "tax_refund_service": (
        "getting the sales levy back when I leave the country",
        "reclaiming VAT on my purchases at the border",
        "paperwork so the government returns part of what I paid",
    ),
    "in_store_cafe_or_restaurant": (
        "somewhere to eat or grab a coffee without leaving the building",
        "a spot for lunch right inside",
        "a counter for drinks and snacks on the premises",
    ),
    "product_customization": (
        "having items personalised to my taste",
        "engraving or monogramming what I buy",
        "goods tailored to my own specifications",
    ),
    "exclusive_collections": (
        "lines you can't find anywhere else",
        "limited editions sold only there",
        "ranges made just for that one seller",
    ),
    "gift_wrapping_service": (
        "purchases packed up prettily with paper and ribbon",
        "presents made ready with paper and bows",
        "ribbon and decorative paper around what I buy",
    ),
    "loyalty_program_benefits": (
        "points and rewards for returning customers",
        "a members' card that earns perks",
        "perks for coming back often",
    ),
}
