"""Write `domains.scn`: the 28 invented knowledge domains of the CCTU-style cases.

    python domains/cctu/vocab/make_domains.py     # rewrites domains/cctu/vocab/domains.scn

Run by hand when the tables below change; the compiler reads the `.scn` (never this file). Every value is invented (names built from our own
syllable pools, numbers from the record number), so no answer can be known without the tools,
and every datatype draws its value as a bijection of `(n, compile_seed)` modulo `POOL`: all
datatypes of one record share one index, so lookups stay consistent, and another seed shifts
every value (fresh instances share no question).

A domain is a chain of four kinds (three chain tools) and four attribute tools. Some tools take
an optional enum filter (`tenure`, `rank`, `season`; `register` on every tool reading the
domain's first kind, whose records the registers disagree on) whose default is what a call gets when it
leaves the filter out; the question says which member it wants in its own words.
"""

# ruff: noqa: E501 (one table row per line)
from __future__ import annotations

from pathlib import Path

POOL = 400
FIRST = (
    "Ilse Tomas Anouk Reza Maelis Oskar Priya Joren Lucia Bram Seren Ivo Katrin Dario Noor Elin "
    "Matteo Sanne Aurel Yara"
).split()
ROOTS = "Vask Orel Thren Kalv Mirr Ossan Drev Pell Quor Sabr Tolv Ulm Wend Yarr Zeph Brann Corv Fald Gavr Hesk".split()
ENDS = "ane ora ith enne holm aro ivel usk ard emi ondo ays iel ast ure omi ek ala inth ova".split()
MULTIPLIERS = (37, 53, 61, 77, 91, 113, 127, 139, 157, 171, 183, 197, 211, 223)

#: Optional enum filters: datatype -> (enum, members, default, description).
FILTERS = {
    "Tenure": (
        "tenure_kind",
        ("current", "previous", "founding"),
        "current",
        "Which holder of the post: the one in office now, the one before, or the first ever.",
    ),
    "Rank": (
        "rank_kind",
        ("largest", "oldest", "newest"),
        "largest",
        "Which one to return when there are several: the largest, the oldest or the newest.",
    ),
    "Register": (
        "register_kind",
        ("national", "regional", "archive"),
        "national",
        "Which register to consult: the national one, a regional one or a private archive;"
        " they do not always agree.",
    ),
    "Season": (
        "season_kind",
        ("spring", "summer", "autumn", "winter"),
        "summer",
        "The season the figure refers to (northern hemisphere).",
    ),
}
#: How a question says each filter member (never the member itself).
FILTER_WORDS = {
    "Tenure.current": "present-day | sitting",
    "Tenure.previous": "former | outgoing",
    "Tenure.founding": "first | original",
    "Rank.largest": "biggest | most extensive",
    "Rank.oldest": "longest-established | most venerable",
    "Rank.newest": "most recently opened | youngest",
    "Register.national": "the country-wide register | the state register",
    "Register.regional": "the provincial register | the district register",
    "Register.archive": "the family papers | the private collection",
    "Season.spring": "between March and May",
    "Season.summer": "between June and August",
    "Season.autumn": "between September and November",
    "Season.winter": "between December and February",
}

# Kind styles: person | name (a proper name + noun) | year | count (a number + unit).
# A domain: (slug, subject, [kinds: (Datatype, style, word)], [tools:
#   (name, input, output, filter or "", what it does, how a question says it with {x})]).
# fmt: off
DOMAINS = [
    ("astronomy", "comet hunting and the observatories behind it",
     [("Comet", "name", "Comet"), ("CometSpotter", "person", ""), ("Observatory", "name", "Observatory"), ("ObservatoryPatron", "person", ""), ("CometPeriod", "count", "years"), ("SpotterBirthYear", "year", ""), ("ObservatoryAltitude", "count", "m"), ("PatronFortune", "count", "thousand crowns")],
     [
      ("comet_spotter_finder", "Comet", "CometSpotter", "", "Names the astronomer credited with first sighting a comet.", "the astronomer who first sighted {x}"),
      ("spotter_observatory_lookup", "CometSpotter", "Observatory", "", "Returns the observatory where an astronomer made most observations.", "the observatory where {x} worked"),
      ("observatory_patron_finder", "Observatory", "ObservatoryPatron", "Tenure", "Names a patron who funds an observatory.", "the {Tenure} patron of {x}"),
      ("comet_period_lookup", "Comet", "CometPeriod", "", "Returns the orbital period of a comet.", "the orbital period of {x}"),
      ("spotter_birth_year", "CometSpotter", "SpotterBirthYear", "", "Returns the year an astronomer was born.", "the birth year of {x}"),
      ("observatory_altitude_finder", "Observatory", "ObservatoryAltitude", "", "Returns how high above sea level an observatory stands.", "the altitude of {x}"),
      ("patron_fortune_estimator", "ObservatoryPatron", "PatronFortune", "", "Estimates the fortune of a patron.", "the fortune of {x}"),
     ]),
    ("maritime", "coastal shipping and the harbours of an inland sea",
     [("Strait", "name", "Strait"), ("StraitHarbour", "name", "Harbour"), ("HarbourMaster", "person", ""), ("MasterGuild", "name", "Pilots' Guild"), ("StraitDepth", "count", "m"), ("HarbourBerths", "count", "berths"), ("MasterServiceYears", "count", "years of service"), ("GuildCharterYear", "year", "")],
     [
      ("strait_harbour_finder", "Strait", "StraitHarbour", "Rank", "Returns a harbour on the shores of a strait.", "the {Rank} harbour on {x}"),
      ("harbour_master_lookup", "StraitHarbour", "HarbourMaster", "Tenure", "Names the harbour master of a harbour.", "the {Tenure} harbour master of {x}"),
      ("master_guild_finder", "HarbourMaster", "MasterGuild", "", "Returns the pilots' guild a harbour master belongs to.", "the pilots' guild of {x}"),
      ("strait_depth_lookup", "Strait", "StraitDepth", "", "Returns the greatest depth of a strait.", "how deep {x} gets"),
      ("harbour_berth_counter", "StraitHarbour", "HarbourBerths", "", "Counts the berths of a harbour.", "how many berths {x} has"),
      ("master_service_lookup", "HarbourMaster", "MasterServiceYears", "", "Returns how long a harbour master has served.", "how long {x} has served"),
      ("guild_charter_year", "MasterGuild", "GuildCharterYear", "", "Returns the year a guild received its charter.", "the year {x} received its charter"),
     ]),
    ("botany", "botanical gardens and the plants they breed",
     [("Orchid", "name", "orchid"), ("OrchidBreeder", "person", ""), ("BreederGarden", "name", "Botanic Garden"), ("GardenCurator", "person", ""), ("OrchidBloomWeeks", "count", "weeks"), ("BreederAward", "name", "Medal"), ("GardenArea", "count", "hectares"), ("CuratorBirthYear", "year", "")],
     [
      ("orchid_breeder_finder", "Orchid", "OrchidBreeder", "", "Names the grower who bred an orchid variety.", "the grower who bred the {x}"),
      ("breeder_garden_lookup", "OrchidBreeder", "BreederGarden", "", "Returns the garden a grower works for.", "the garden that {x} works for"),
      ("garden_curator_finder", "BreederGarden", "GardenCurator", "Tenure", "Names a curator of a botanic garden.", "the {Tenure} curator of {x}"),
      ("orchid_bloom_lookup", "Orchid", "OrchidBloomWeeks", "Season", "Returns how many weeks an orchid stays in bloom in a season.", "how many weeks the {x} blooms {Season}"),
      ("breeder_award_finder", "OrchidBreeder", "BreederAward", "", "Names the best-known prize a grower won.", "the best-known prize won by {x}"),
      ("garden_area_lookup", "BreederGarden", "GardenArea", "", "Returns the area a garden covers.", "the area covered by {x}"),
      ("curator_birth_year", "GardenCurator", "CuratorBirthYear", "", "Returns the year a curator was born.", "the year {x} was born"),
     ]),
    ("football", "a football circuit of small towns and its clubs",
     [("Club", "name", "Athletic"), ("ClubLeague", "name", "League"), ("LeagueCommissioner", "person", ""), ("CommissionerTown", "name", "town"), ("ClubStadiumSeats", "count", "seats"), ("LeagueFoundingYear", "year", ""), ("CommissionerTermCount", "count", "terms"), ("TownMarketDay", "name", "market day")],
     [
      ("club_league_finder", "Club", "ClubLeague", "", "Returns the league a club plays in.", "the league that {x} plays in"),
      ("league_commissioner_lookup", "ClubLeague", "LeagueCommissioner", "Tenure", "Names a commissioner of a league.", "the {Tenure} commissioner of {x}"),
      ("commissioner_hometown_finder", "LeagueCommissioner", "CommissionerTown", "", "Returns the town a person grew up in.", "the town where {x} grew up"),
      ("club_stadium_capacity", "Club", "ClubStadiumSeats", "", "Returns the capacity of a club's home ground.", "how many fans the home ground of {x} holds"),
      ("league_founding_lookup", "ClubLeague", "LeagueFoundingYear", "", "Returns the year a league was founded.", "the year {x} was founded"),
      ("commissioner_term_counter", "LeagueCommissioner", "CommissionerTermCount", "", "Counts the terms a commissioner has served.", "how many terms {x} has served"),
      ("town_market_lookup", "CommissionerTown", "TownMarketDay", "", "Returns the weekly market day of a town.", "the market day of {x}"),
     ]),
    ("music", "chamber ensembles and the halls they play in",
     [("Sonata", "name", "Sonata"), ("SonataComposer", "person", ""), ("ComposerEnsemble", "name", "Quartet"), ("EnsembleHall", "name", "Hall"), ("SonataMinutes", "count", "minutes"), ("ComposerDebutYear", "year", ""), ("EnsembleTourDates", "count", "concerts"), ("HallSeats", "count", "seats")],
     [
      ("sonata_composer_finder", "Sonata", "SonataComposer", "", "Names the composer of a piece.", "the composer of the {x}"),
      ("composer_ensemble_lookup", "SonataComposer", "ComposerEnsemble", "", "Returns the ensemble a composer founded.", "the ensemble founded by {x}"),
      ("ensemble_hall_finder", "ComposerEnsemble", "EnsembleHall", "Rank", "Returns a hall an ensemble has residencies in.", "the {Rank} hall where {x} holds a residency"),
      ("sonata_length_lookup", "Sonata", "SonataMinutes", "", "Returns how long a piece lasts in performance.", "how long the {x} lasts"),
      ("composer_debut_year", "SonataComposer", "ComposerDebutYear", "", "Returns the year a composer first performed in public.", "the year {x} first performed in public"),
      ("ensemble_tour_counter", "ComposerEnsemble", "EnsembleTourDates", "Season", "Counts the concerts an ensemble gives in a season.", "how many concerts {x} gives {Season}"),
      ("hall_capacity_lookup", "EnsembleHall", "HallSeats", "", "Returns how many seats a hall has.", "how many seats {x} has"),
     ]),
    ("cuisine", "local dishes and the markets that supply them",
     [("Dish", "name", "stew"), ("DishRegion", "name", "valley"), ("RegionMarket", "name", "Market"), ("MarketWarden", "person", ""), ("DishCalories", "count", "kcal"), ("RegionRainfall", "count", "mm a year"), ("MarketStalls", "count", "stalls"), ("WardenBirthYear", "year", "")],
     [
      ("dish_region_finder", "Dish", "DishRegion", "", "Returns the region a dish comes from.", "the region that {x} comes from"),
      ("region_market_lookup", "DishRegion", "RegionMarket", "Rank", "Returns a food market of a region.", "the {Rank} food market of {x}"),
      ("market_warden_finder", "RegionMarket", "MarketWarden", "Tenure", "Names the warden who runs a market.", "the {Tenure} warden of {x}"),
      ("dish_calorie_estimator", "Dish", "DishCalories", "", "Estimates the calories of one serving of a dish.", "how many calories a serving of {x} has"),
      ("region_rainfall_lookup", "DishRegion", "RegionRainfall", "", "Returns the yearly rainfall of a region.", "the yearly rainfall of {x}"),
      ("market_stall_counter", "RegionMarket", "MarketStalls", "Season", "Counts the stalls a market holds in a season.", "how many stalls {x} holds {Season}"),
      ("warden_birth_year", "MarketWarden", "WardenBirthYear", "", "Returns the year a warden was born.", "the year {x} was born"),
     ]),
    ("geology", "mines, the minerals they yield and their owners",
     [("Mineral", "name", "ite"), ("MineralMine", "name", "Mine"), ("MineCompany", "name", "Mining Company"), ("CompanyChair", "person", ""), ("MineralHardness", "count", "on the hardness scale"), ("MineDepth", "count", "m"), ("CompanyStaff", "count", "employees"), ("ChairBirthYear", "year", "")],
     [
      ("mineral_mine_finder", "Mineral", "MineralMine", "Rank", "Returns a mine a mineral is dug from.", "the {Rank} mine that yields {x}"),
      ("mine_company_lookup", "MineralMine", "MineCompany", "", "Returns the company that owns a mine.", "the company that owns {x}"),
      ("company_chair_finder", "MineCompany", "CompanyChair", "Tenure", "Names a chair of a company's board.", "the {Tenure} chair of {x}"),
      ("mineral_hardness_lookup", "Mineral", "MineralHardness", "", "Returns how hard a mineral is.", "how hard {x} is"),
      ("mine_depth_finder", "MineralMine", "MineDepth", "", "Returns the depth of a mine's deepest shaft.", "how deep {x} goes"),
      ("company_staff_counter", "MineCompany", "CompanyStaff", "", "Counts the staff of a company.", "how many people {x} employs"),
      ("chair_birth_year", "CompanyChair", "ChairBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("aviation", "small airlines and their airfields",
     [("Airliner", "name", "jet"), ("AirlinerCarrier", "name", "Airways"), ("CarrierHub", "name", "Airfield"), ("HubDirector", "person", ""), ("AirlinerRange", "count", "km"), ("CarrierFleet", "count", "aircraft"), ("HubRunwayLength", "count", "m"), ("DirectorBirthYear", "year", "")],
     [
      ("airliner_carrier_finder", "Airliner", "AirlinerCarrier", "", "Returns the airline that flies an aircraft type.", "the airline that flies the {x}"),
      ("carrier_hub_lookup", "AirlinerCarrier", "CarrierHub", "Rank", "Returns an airfield an airline is based at.", "the {Rank} airfield {x} is based at"),
      ("hub_director_finder", "CarrierHub", "HubDirector", "Tenure", "Names a director of an airfield.", "the {Tenure} director of {x}"),
      ("airliner_range_lookup", "Airliner", "AirlinerRange", "", "Returns how far an aircraft type can fly.", "how far the {x} can fly"),
      ("carrier_fleet_counter", "AirlinerCarrier", "CarrierFleet", "", "Counts the aircraft of an airline.", "how many aircraft {x} operates"),
      ("hub_runway_lookup", "CarrierHub", "HubRunwayLength", "", "Returns the length of an airfield's main runway.", "the length of the main runway at {x}"),
      ("director_birth_year", "HubDirector", "DirectorBirthYear", "", "Returns the year a director was born.", "the year {x} was born"),
     ]),
    ("architecture", "civic buildings and the studios that design them",
     [("Bridge", "name", "Bridge"), ("BridgeStudio", "name", "Studio"), ("StudioPrincipal", "person", ""), ("PrincipalSchool", "name", "School of Design"), ("BridgeSpan", "count", "m"), ("StudioProjects", "count", "projects"), ("PrincipalAwardYear", "year", ""), ("SchoolStudents", "count", "students")],
     [
      ("bridge_studio_finder", "Bridge", "BridgeStudio", "", "Returns the studio that designed a bridge.", "the studio that designed {x}"),
      ("studio_principal_lookup", "BridgeStudio", "StudioPrincipal", "Tenure", "Names a principal of a design studio.", "the {Tenure} principal of {x}"),
      ("principal_school_finder", "StudioPrincipal", "PrincipalSchool", "", "Returns the school where an architect trained.", "the school where {x} trained"),
      ("bridge_span_lookup", "Bridge", "BridgeSpan", "", "Returns the main span of a bridge.", "the main span of {x}"),
      ("studio_project_counter", "BridgeStudio", "StudioProjects", "", "Counts the finished projects of a studio.", "how many projects {x} has finished"),
      ("principal_award_year", "StudioPrincipal", "PrincipalAwardYear", "", "Returns the year an architect won a first major prize.", "the year {x} won a first major prize"),
      ("school_enrolment_lookup", "PrincipalSchool", "SchoolStudents", "", "Returns how many students a school enrols.", "how many students {x} enrols"),
     ]),
    ("cinema", "independent films and the studios behind them",
     [("Film", "name", "Lanterns"), ("FilmDirector", "person", ""), ("DirectorStudio", "name", "Pictures"), ("StudioLot", "name", "lot"), ("FilmRuntime", "count", "minutes"), ("DirectorDebutYear", "year", ""), ("StudioReleases", "count", "releases"), ("LotStages", "count", "sound stages")],
     [
      ("film_director_finder", "Film", "FilmDirector", "", "Names the director of a film.", "the director of {x}"),
      ("director_studio_lookup", "FilmDirector", "DirectorStudio", "", "Returns the studio a director works with.", "the studio {x} works with"),
      ("studio_lot_finder", "DirectorStudio", "StudioLot", "Rank", "Returns a backlot a studio shoots on.", "the {Rank} backlot of {x}"),
      ("film_runtime_lookup", "Film", "FilmRuntime", "", "Returns the running time of a film.", "how long {x} runs"),
      ("director_debut_year", "FilmDirector", "DirectorDebutYear", "", "Returns the year of a director's first feature.", "the year {x} made a first feature"),
      ("studio_release_counter", "DirectorStudio", "StudioReleases", "Season", "Counts the films a studio releases in a season.", "how many films {x} releases {Season}"),
      ("lot_stage_counter", "StudioLot", "LotStages", "", "Counts the sound stages on a backlot.", "how many sound stages {x} has"),
     ]),
    ("publishing", "novels, their authors and small presses",
     [("Novel", "name", "Chronicle"), ("NovelAuthor", "person", ""), ("AuthorPress", "name", "Press"), ("PressEditor", "person", ""), ("NovelPages", "count", "pages"), ("AuthorBirthYear", "year", ""), ("PressTitles", "count", "titles a year"), ("EditorPrize", "name", "Prize")],
     [
      ("novel_author_finder", "Novel", "NovelAuthor", "", "Names the author of a novel.", "the author of {x}"),
      ("author_press_lookup", "NovelAuthor", "AuthorPress", "", "Returns the press that publishes an author.", "the press that publishes {x}"),
      ("press_editor_finder", "AuthorPress", "PressEditor", "Tenure", "Names an editor-in-chief of a press.", "the {Tenure} editor-in-chief of {x}"),
      ("novel_length_lookup", "Novel", "NovelPages", "", "Returns the page count of a novel.", "how many pages {x} has"),
      ("author_birth_year", "NovelAuthor", "AuthorBirthYear", "", "Returns the year an author was born.", "the year {x} was born"),
      ("press_output_lookup", "AuthorPress", "PressTitles", "", "Returns how many titles a press publishes a year.", "how many titles {x} publishes a year"),
      ("editor_prize_finder", "PressEditor", "EditorPrize", "", "Names the prize an editor is best known for.", "the prize {x} is best known for"),
     ]),
    ("politics", "provincial assemblies and their reforms",
     [("Reform", "name", "Act"), ("ReformSponsor", "person", ""), ("SponsorProvince", "name", "Province"), ("ProvinceSeat", "name", "seat of government"), ("ReformYear", "year", ""), ("SponsorVotes", "count", "votes"), ("ProvincePopulation", "count", "residents"), ("SeatCouncillors", "count", "councillors")],
     [
      ("reform_sponsor_finder", "Reform", "ReformSponsor", "", "Names the legislator who sponsored a reform.", "the legislator who sponsored {x}"),
      ("sponsor_province_lookup", "ReformSponsor", "SponsorProvince", "", "Returns the province a legislator represents.", "the province {x} represents"),
      ("province_seat_finder", "SponsorProvince", "ProvinceSeat", "Rank", "Returns a town with government offices in a province.", "the {Rank} town with government offices in {x}"),
      ("reform_year_lookup", "Reform", "ReformYear", "", "Returns the year a reform was passed.", "the year {x} was passed"),
      ("sponsor_vote_counter", "ReformSponsor", "SponsorVotes", "", "Counts the votes a legislator won at the last election.", "how many votes {x} won at the last election"),
      ("province_population_lookup", "SponsorProvince", "ProvincePopulation", "", "Returns the population of a province.", "how many people live in {x}"),
      ("seat_council_counter", "ProvinceSeat", "SeatCouncillors", "", "Counts the councillors of a town.", "how many councillors {x} has"),
     ]),
    ("museums", "paintings and the museums that hold them",
     [("Painting", "name", "Triptych"), ("PaintingMuseum", "name", "Museum"), ("MuseumDirector", "person", ""), ("DirectorAcademy", "name", "Academy"), ("PaintingYear", "year", ""), ("MuseumVisitors", "count", "visitors"), ("DirectorExhibitions", "count", "exhibitions"), ("AcademyFoundingYear", "year", "")],
     [
      ("painting_museum_finder", "Painting", "PaintingMuseum", "", "Returns the museum that holds a painting.", "the museum that holds {x}"),
      ("museum_director_lookup", "PaintingMuseum", "MuseumDirector", "Tenure", "Names a director of a museum.", "the {Tenure} director of {x}"),
      ("director_academy_finder", "MuseumDirector", "DirectorAcademy", "", "Returns the academy a person studied at.", "the academy {x} studied at"),
      ("painting_date_lookup", "Painting", "PaintingYear", "", "Returns the year a painting was finished.", "the year {x} was finished"),
      ("museum_visitor_counter", "PaintingMuseum", "MuseumVisitors", "Season", "Counts the visitors of a museum in a season.", "how many visitors {x} receives {Season}"),
      ("director_exhibition_counter", "MuseumDirector", "DirectorExhibitions", "", "Counts the exhibitions a director has curated.", "how many exhibitions {x} has curated"),
      ("academy_founding_year", "DirectorAcademy", "AcademyFoundingYear", "", "Returns the year an academy was founded.", "the year {x} was founded"),
     ]),
    ("railways", "narrow-gauge railways and their depots",
     [("Locomotive", "name", "engine"), ("LocomotiveLine", "name", "Line"), ("LineDepot", "name", "Depot"), ("DepotForeman", "person", ""), ("LocomotiveTopSpeed", "count", "km/h"), ("LineLength", "count", "km"), ("DepotTracks", "count", "tracks"), ("ForemanServiceYears", "count", "years")],
     [
      ("locomotive_line_finder", "Locomotive", "LocomotiveLine", "", "Returns the line a locomotive runs on.", "the line that the {x} runs on"),
      ("line_depot_lookup", "LocomotiveLine", "LineDepot", "Rank", "Returns a depot that serves a line.", "the {Rank} depot serving {x}"),
      ("depot_foreman_finder", "LineDepot", "DepotForeman", "Tenure", "Names a foreman of a depot.", "the {Tenure} foreman of {x}"),
      ("locomotive_speed_lookup", "Locomotive", "LocomotiveTopSpeed", "", "Returns the top speed of a locomotive.", "the top speed of the {x}"),
      ("line_length_lookup", "LocomotiveLine", "LineLength", "", "Returns the length of a line.", "how long {x} is"),
      ("depot_track_counter", "LineDepot", "DepotTracks", "", "Counts the tracks of a depot.", "how many tracks {x} has"),
      ("foreman_service_lookup", "DepotForeman", "ForemanServiceYears", "", "Returns how long a foreman has served.", "how long {x} has served"),
     ]),
    ("viticulture", "vineyards, their estates and cellar masters",
     [("Vintage", "name", "red"), ("VintageEstate", "name", "Estate"), ("EstateCellarMaster", "person", ""), ("CellarMasterVillage", "name", "village"), ("VintageBottles", "count", "bottles"), ("EstateHectares", "count", "hectares of vines"), ("CellarMasterHarvests", "count", "harvests"), ("VillageFeastDay", "name", "feast")],
     [
      ("vintage_estate_finder", "Vintage", "VintageEstate", "", "Returns the estate that makes a wine.", "the estate that makes the {x}"),
      ("estate_cellar_master_lookup", "VintageEstate", "EstateCellarMaster", "Tenure", "Names a cellar master of an estate.", "the {Tenure} cellar master of {x}"),
      ("cellar_master_village_finder", "EstateCellarMaster", "CellarMasterVillage", "", "Returns the village a person comes from.", "the village {x} comes from"),
      ("vintage_bottle_counter", "Vintage", "VintageBottles", "", "Counts the bottles of a wine made each year.", "how many bottles of the {x} are made each year"),
      ("estate_vineyard_lookup", "VintageEstate", "EstateHectares", "", "Returns the vineyard area of an estate.", "the vineyard area of {x}"),
      ("cellar_master_harvest_counter", "EstateCellarMaster", "CellarMasterHarvests", "", "Counts the harvests a cellar master has overseen.", "how many harvests {x} has overseen"),
      ("village_feast_lookup", "CellarMasterVillage", "VillageFeastDay", "", "Returns the yearly feast of a village.", "the yearly feast of {x}"),
     ]),
    ("academia", "research institutes and their laboratories",
     [("Compound", "name", "ol"), ("CompoundLab", "name", "Laboratory"), ("LabInstitute", "name", "Institute"), ("InstituteRector", "person", ""), ("CompoundMeltingPoint", "count", "degrees"), ("LabStaff", "count", "researchers"), ("InstituteFoundingYear", "year", ""), ("RectorPapers", "count", "papers")],
     [
      ("compound_lab_finder", "Compound", "CompoundLab", "", "Returns the laboratory that first made a compound.", "the laboratory that first made {x}"),
      ("lab_institute_lookup", "CompoundLab", "LabInstitute", "", "Returns the institute a laboratory belongs to.", "the institute {x} belongs to"),
      ("institute_rector_finder", "LabInstitute", "InstituteRector", "Tenure", "Names a rector of an institute.", "the {Tenure} rector of {x}"),
      ("compound_melting_point", "Compound", "CompoundMeltingPoint", "", "Returns the melting point of a compound.", "the melting point of {x}"),
      ("lab_staff_counter", "CompoundLab", "LabStaff", "", "Counts the researchers of a laboratory.", "how many researchers {x} has"),
      ("institute_founding_year", "LabInstitute", "InstituteFoundingYear", "", "Returns the year an institute was founded.", "the year {x} was founded"),
      ("rector_paper_counter", "InstituteRector", "RectorPapers", "", "Counts the papers a scholar has published.", "how many papers {x} has published"),
     ]),
    ("tourism", "mountain resorts and their lodges",
     [("Resort", "name", "resort"), ("ResortLodge", "name", "Lodge"), ("LodgeKeeper", "person", ""), ("KeeperHomeValley", "name", "valley"), ("ResortLifts", "count", "lifts"), ("LodgeRate", "count", "crowns a night"), ("KeeperGuestBooks", "count", "guest books"), ("ValleyVillages", "count", "villages")],
     [
      ("resort_lodge_finder", "Resort", "ResortLodge", "Rank", "Returns a lodge at a resort.", "the {Rank} lodge at {x}"),
      ("lodge_keeper_lookup", "ResortLodge", "LodgeKeeper", "Tenure", "Names a keeper of a lodge.", "the {Tenure} keeper of {x}"),
      ("keeper_valley_finder", "LodgeKeeper", "KeeperHomeValley", "", "Returns the valley a person comes from.", "the valley {x} comes from"),
      ("resort_lift_counter", "Resort", "ResortLifts", "", "Counts the lifts of a resort.", "how many lifts {x} has"),
      ("lodge_rate_finder", "ResortLodge", "LodgeRate", "Season", "Returns the nightly rate of a lodge in a season.", "the nightly rate at {x} {Season}"),
      ("keeper_guest_book_counter", "LodgeKeeper", "KeeperGuestBooks", "", "Counts the guest books a keeper has filled.", "how many guest books {x} has filled"),
      ("valley_village_counter", "KeeperHomeValley", "ValleyVillages", "", "Counts the villages of a valley.", "how many villages lie in {x}"),
     ]),
    ("medicine", "rural clinics and the physicians who run them",
     [("Remedy", "name", "tincture"), ("RemedyClinic", "name", "Clinic"), ("ClinicPhysician", "person", ""), ("PhysicianCollege", "name", "Medical College"), ("RemedyDose", "count", "drops"), ("ClinicBeds", "count", "beds"), ("PhysicianPatients", "count", "patients a week"), ("CollegeFoundingYear", "year", "")],
     [
      ("remedy_clinic_finder", "Remedy", "RemedyClinic", "", "Returns the clinic that dispenses a remedy.", "the clinic that dispenses the {x}"),
      ("clinic_physician_lookup", "RemedyClinic", "ClinicPhysician", "Tenure", "Names a head physician of a clinic.", "the {Tenure} head physician of {x}"),
      ("physician_college_finder", "ClinicPhysician", "PhysicianCollege", "", "Returns the college where a physician qualified.", "the college where {x} qualified"),
      ("remedy_dose_lookup", "Remedy", "RemedyDose", "", "Returns the usual dose of a remedy.", "the usual dose of the {x}"),
      ("clinic_bed_counter", "RemedyClinic", "ClinicBeds", "Season", "Counts the beds a clinic opens in a season.", "how many beds {x} opens {Season}"),
      ("physician_patient_counter", "ClinicPhysician", "PhysicianPatients", "", "Counts the patients a physician sees a week.", "how many patients {x} sees a week"),
      ("college_founding_year", "PhysicianCollege", "CollegeFoundingYear", "", "Returns the year a college was founded.", "the year {x} was founded"),
     ]),
    ("archaeology", "excavations and the expeditions that dug them",
     [("Artifact", "name", "amphora"), ("ArtifactSite", "name", "dig site"), ("SiteExpedition", "name", "Expedition"), ("ExpeditionLeader", "person", ""), ("ArtifactAge", "count", "years old"), ("SiteTrenches", "count", "trenches"), ("ExpeditionSeasons", "count", "digging seasons"), ("LeaderBirthYear", "year", "")],
     [
      ("artifact_site_finder", "Artifact", "ArtifactSite", "", "Returns the site where an artifact was found.", "the site where the {x} was found"),
      ("site_expedition_lookup", "ArtifactSite", "SiteExpedition", "Rank", "Returns an expedition that dug a site.", "the {Rank} expedition to dig {x}"),
      ("expedition_leader_finder", "SiteExpedition", "ExpeditionLeader", "Tenure", "Names a leader of an expedition.", "the {Tenure} leader of {x}"),
      ("artifact_age_lookup", "Artifact", "ArtifactAge", "", "Returns the estimated age of an artifact.", "how old the {x} is"),
      ("site_trench_counter", "ArtifactSite", "SiteTrenches", "", "Counts the trenches opened at a site.", "how many trenches were opened at {x}"),
      ("expedition_season_counter", "SiteExpedition", "ExpeditionSeasons", "", "Counts the seasons an expedition has dug.", "how many seasons {x} has dug"),
      ("leader_birth_year", "ExpeditionLeader", "LeaderBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("fashion", "couture houses and their ateliers",
     [("Gown", "name", "gown"), ("GownHouse", "name", "Couture"), ("HouseAtelier", "name", "Atelier"), ("AtelierHead", "person", ""), ("GownMetres", "count", "metres of silk"), ("HouseShows", "count", "shows"), ("AtelierSeamstresses", "count", "seamstresses"), ("HeadBirthYear", "year", "")],
     [
      ("gown_house_finder", "Gown", "GownHouse", "", "Returns the couture house that made a gown.", "the couture house that made the {x}"),
      ("house_atelier_lookup", "GownHouse", "HouseAtelier", "Rank", "Returns an atelier of a couture house.", "the {Rank} atelier of {x}"),
      ("atelier_head_finder", "HouseAtelier", "AtelierHead", "Tenure", "Names a head of an atelier.", "the {Tenure} head of {x}"),
      ("gown_fabric_lookup", "Gown", "GownMetres", "", "Returns how much fabric a gown takes.", "how much silk the {x} takes"),
      ("house_show_counter", "GownHouse", "HouseShows", "Season", "Counts the shows a house stages in a season.", "how many shows {x} stages {Season}"),
      ("atelier_staff_counter", "HouseAtelier", "AtelierSeamstresses", "", "Counts the seamstresses of an atelier.", "how many seamstresses work at {x}"),
      ("head_birth_year", "AtelierHead", "HeadBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("chess", "chess clubs and their tournaments",
     [("Opening", "name", "Gambit"), ("OpeningPioneer", "person", ""), ("PioneerClub", "name", "Chess Club"), ("ClubTournament", "name", "Open"), ("OpeningMoves", "count", "moves"), ("PioneerRating", "count", "rating points"), ("ClubMembers", "count", "members"), ("TournamentPrize", "count", "crowns")],
     [
      ("opening_pioneer_finder", "Opening", "OpeningPioneer", "", "Names the player who first played an opening in a tournament.", "the player who first used the {x}"),
      ("pioneer_club_lookup", "OpeningPioneer", "PioneerClub", "", "Returns the club a player belongs to.", "the club {x} belongs to"),
      ("club_tournament_finder", "PioneerClub", "ClubTournament", "Rank", "Returns a tournament a club hosts.", "the {Rank} tournament hosted by {x}"),
      ("opening_length_lookup", "Opening", "OpeningMoves", "", "Returns how many moves the main line of an opening has.", "how many moves the main line of the {x} has"),
      ("pioneer_rating_lookup", "OpeningPioneer", "PioneerRating", "", "Returns a player's highest rating.", "the highest rating of {x}"),
      ("club_member_counter", "PioneerClub", "ClubMembers", "", "Counts the members of a club.", "how many members {x} has"),
      ("tournament_prize_lookup", "ClubTournament", "TournamentPrize", "Season", "Returns the prize fund of a tournament's edition in a season.", "the prize fund of {x} {Season}"),
     ]),
    ("mountaineering", "mountain ranges, their peaks and the climbers who opened them",
     [("Peak", "name", "Peak"), ("PeakClimber", "person", ""), ("ClimberHut", "name", "Hut"), ("HutWarden", "person", ""), ("PeakHeight", "count", "m"), ("ClimberAscents", "count", "first ascents"), ("HutBunks", "count", "bunks"), ("WardenBirthYearHut", "year", "")],
     [
      ("peak_climber_finder", "Peak", "PeakClimber", "", "Names the climber who first reached a summit.", "the climber who first reached the top of {x}"),
      ("climber_hut_lookup", "PeakClimber", "ClimberHut", "", "Returns the mountain hut a climber built.", "the mountain hut built by {x}"),
      ("hut_warden_finder", "ClimberHut", "HutWarden", "Tenure", "Names a warden of a mountain hut.", "the {Tenure} warden of {x}"),
      ("peak_height_lookup", "Peak", "PeakHeight", "", "Returns the height of a summit.", "how high {x} is"),
      ("climber_ascent_counter", "PeakClimber", "ClimberAscents", "", "Counts a climber's first ascents.", "how many first ascents {x} made"),
      ("hut_bunk_counter", "ClimberHut", "HutBunks", "Season", "Counts the bunks a hut opens in a season.", "how many bunks {x} opens {Season}"),
      ("hut_warden_birth_year", "HutWarden", "WardenBirthYearHut", "", "Returns the year a warden was born.", "the year {x} was born"),
     ]),
    ("textiles", "weaving towns and their guilds",
     [("Tapestry", "name", "tapestry"), ("TapestryTown", "name", "town"), ("TownGuild", "name", "Weavers' Guild"), ("GuildMaster", "person", ""), ("TapestryWidth", "count", "m"), ("TownLooms", "count", "looms"), ("GuildMembers", "count", "members"), ("MasterBirthYear", "year", "")],
     [
      ("tapestry_town_finder", "Tapestry", "TapestryTown", "", "Returns the town where a tapestry was woven.", "the town where the {x} was woven"),
      ("town_guild_lookup", "TapestryTown", "TownGuild", "Rank", "Returns a weavers' guild of a town.", "the {Rank} weavers' guild of {x}"),
      ("guild_master_finder", "TownGuild", "GuildMaster", "Tenure", "Names a master of a guild.", "the {Tenure} master of {x}"),
      ("tapestry_width_lookup", "Tapestry", "TapestryWidth", "", "Returns the width of a tapestry.", "how wide the {x} is"),
      ("town_loom_counter", "TapestryTown", "TownLooms", "", "Counts the working looms of a town.", "how many looms work in {x}"),
      ("guild_member_counter", "TownGuild", "GuildMembers", "", "Counts the members of a guild.", "how many members {x} has"),
      ("master_birth_year", "GuildMaster", "MasterBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("theatre", "touring theatre companies and their playhouses",
     [("Play", "name", "Tragedy"), ("PlayCompany", "name", "Players"), ("CompanyPlayhouse", "name", "Playhouse"), ("PlayhouseManager", "person", ""), ("PlayActs", "count", "acts"), ("CompanyActors", "count", "actors"), ("PlayhouseSeats", "count", "seats"), ("ManagerBirthYear", "year", "")],
     [
      ("play_company_finder", "Play", "PlayCompany", "", "Returns the company that premiered a play.", "the company that premiered {x}"),
      ("company_playhouse_lookup", "PlayCompany", "CompanyPlayhouse", "Rank", "Returns a playhouse a company performs in.", "the {Rank} playhouse {x} performs in"),
      ("playhouse_manager_finder", "CompanyPlayhouse", "PlayhouseManager", "Tenure", "Names a manager of a playhouse.", "the {Tenure} manager of {x}"),
      ("play_act_counter", "Play", "PlayActs", "", "Counts the acts of a play.", "how many acts {x} has"),
      ("company_actor_counter", "PlayCompany", "CompanyActors", "Season", "Counts the actors a company tours with in a season.", "how many actors {x} tours with {Season}"),
      ("playhouse_seat_counter", "CompanyPlayhouse", "PlayhouseSeats", "", "Counts the seats of a playhouse.", "how many seats {x} has"),
      ("manager_birth_year", "PlayhouseManager", "ManagerBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("wildlife", "nature reserves and the species they protect",
     [("Species", "name", "heron"), ("SpeciesReserve", "name", "Reserve"), ("ReserveRanger", "person", ""), ("RangerStation", "name", "station"), ("SpeciesCount", "count", "breeding pairs"), ("ReserveArea", "count", "km2"), ("RangerPatrols", "count", "patrols a month"), ("StationFoundingYear", "year", "")],
     [
      ("species_reserve_finder", "Species", "SpeciesReserve", "Rank", "Returns a reserve that protects a species.", "the {Rank} reserve protecting the {x}"),
      ("reserve_ranger_lookup", "SpeciesReserve", "ReserveRanger", "Tenure", "Names a chief ranger of a reserve.", "the {Tenure} chief ranger of {x}"),
      ("ranger_station_finder", "ReserveRanger", "RangerStation", "", "Returns the station a ranger works from.", "the station {x} works from"),
      ("species_census_lookup", "Species", "SpeciesCount", "Season", "Returns the breeding pairs of a species counted in a season.", "how many breeding pairs of the {x} are counted {Season}"),
      ("reserve_area_lookup", "SpeciesReserve", "ReserveArea", "", "Returns the area of a reserve.", "the area of {x}"),
      ("ranger_patrol_counter", "ReserveRanger", "RangerPatrols", "", "Counts the patrols a ranger leads a month.", "how many patrols {x} leads a month"),
      ("station_founding_year", "RangerStation", "StationFoundingYear", "", "Returns the year a station opened.", "the year {x} opened"),
     ]),
    ("banking", "merchant banks and their branches",
     [("Bond", "name", "Bond"), ("BondBank", "name", "Bank"), ("BankBranch", "name", "branch"), ("BranchManager", "person", ""), ("BondYield", "count", "basis points"), ("BankDeposits", "count", "million crowns"), ("BranchClients", "count", "clients"), ("ManagerStartYear", "year", "")],
     [
      ("bond_bank_finder", "Bond", "BondBank", "", "Returns the bank that issued a bond.", "the bank that issued the {x}"),
      ("bank_branch_lookup", "BondBank", "BankBranch", "Rank", "Returns a branch of a bank.", "the {Rank} branch of {x}"),
      ("branch_manager_finder", "BankBranch", "BranchManager", "Tenure", "Names a manager of a branch.", "the {Tenure} manager of {x}"),
      ("bond_yield_lookup", "Bond", "BondYield", "", "Returns the yield of a bond.", "the yield of the {x}"),
      ("bank_deposit_lookup", "BondBank", "BankDeposits", "", "Returns the deposits a bank holds.", "the deposits held by {x}"),
      ("branch_client_counter", "BankBranch", "BranchClients", "", "Counts the clients of a branch.", "how many clients {x} serves"),
      ("manager_start_year", "BranchManager", "ManagerStartYear", "", "Returns the year a person started in banking.", "the year {x} started in banking"),
     ]),
    ("inventions", "workshops, their devices and patent holders",
     [("Device", "name", "apparatus"), ("DeviceInventor", "person", ""), ("InventorWorkshop", "name", "Works"), ("WorkshopOwner", "person", ""), ("DevicePatentYear", "year", ""), ("InventorPatents", "count", "patents"), ("WorkshopStaff", "count", "workers"), ("OwnerBirthYear", "year", "")],
     [
      ("device_inventor_finder", "Device", "DeviceInventor", "", "Names the inventor of a device.", "the inventor of the {x}"),
      ("inventor_workshop_lookup", "DeviceInventor", "InventorWorkshop", "", "Returns the workshop an inventor worked in.", "the workshop {x} worked in"),
      ("workshop_owner_finder", "InventorWorkshop", "WorkshopOwner", "Tenure", "Names an owner of a workshop.", "the {Tenure} owner of {x}"),
      ("device_patent_year", "Device", "DevicePatentYear", "", "Returns the year a device was patented.", "the year the {x} was patented"),
      ("inventor_patent_counter", "DeviceInventor", "InventorPatents", "", "Counts the patents an inventor holds.", "how many patents {x} holds"),
      ("workshop_staff_counter", "InventorWorkshop", "WorkshopStaff", "Season", "Counts the workers a workshop employs in a season.", "how many workers {x} employs {Season}"),
      ("owner_birth_year", "WorkshopOwner", "OwnerBirthYear", "", "Returns the year a person was born.", "the year {x} was born"),
     ]),
    ("festivals", "folk festivals and the towns that host them",
     [("Festival", "name", "Festival"), ("FestivalTown", "name", "town"), ("TownMayor", "person", ""), ("MayorParty", "name", "Party"), ("FestivalVisitors", "count", "visitors"), ("TownBridges", "count", "bridges"), ("MayorTerms", "count", "terms"), ("PartyFoundingYear", "year", "")],
     [
      ("festival_town_finder", "Festival", "FestivalTown", "", "Returns the town that hosts a festival.", "the town that hosts the {x}"),
      ("town_mayor_lookup", "FestivalTown", "TownMayor", "Tenure", "Names a mayor of a town.", "the {Tenure} mayor of {x}"),
      ("mayor_party_finder", "TownMayor", "MayorParty", "", "Returns the party a politician belongs to.", "the party {x} belongs to"),
      ("festival_visitor_counter", "Festival", "FestivalVisitors", "Season", "Counts the visitors of a festival's edition in a season.", "how many visitors the {x} draws {Season}"),
      ("town_bridge_counter", "FestivalTown", "TownBridges", "", "Counts the bridges of a town.", "how many bridges {x} has"),
      ("mayor_term_counter", "TownMayor", "MayorTerms", "", "Counts the terms a mayor has served.", "how many terms {x} has served"),
      ("party_founding_year", "MayorParty", "PartyFoundingYear", "", "Returns the year a party was founded.", "the year {x} was founded"),
     ]),
]
# fmt: on


def index(k: int) -> str:
    """The record's index into a pool of POOL values, a bijection of n for kind number k."""
    m = MULTIPLIERS[k % len(MULTIPLIERS)]
    return f"(n * {m} + compile_seed * 131 + {17 * k + 3}) % {POOL}"


def fmt(style: str, word: str, k: int) -> str:
    i = index(k)
    name = f"{{roots[int(({i}) / 20)]}}{{ends[({i}) % 20]}}"
    if style == "person":
        return f"{{first_names[({i}) % 20]}} {{roots[int(({i}) / 20)]}}{{ends[(({i}) * 3) % 20]}}"
    if style == "year":
        return f"{{1600 + ({i})}}"
    if style == "count":
        return f"{{12 + ({i}) * 7}} {word}"
    if word in ("ite", "ol"):  # a suffix: Vaskaneite, Threnithol
        return f"{name}{word}"
    if word and word[0].islower():
        return f"{name} {word}"
    return f"{name} {word}".strip()


def describe_kind(dt: str) -> str:
    return " ".join(w.lower() for w in __import__("re").findall(r"[A-Z][a-z0-9]*", dt))


def tool_text(slug: str, subject: str, doc: str, in_dt: str, out_dt: str, filt: str) -> str:
    """A tool's description: what it answers, what it reads and returns, how it fails."""
    extra = (
        f" It accepts an optional filter ({filt.lower()}) that picks one of several matching"
        " records; left out, the default record is returned, which is not always the one a"
        " question means."
        if filt
        else ""
    )
    return (
        f"{doc} Part of a reference service on {subject}. Input: the exact name of one "
        f"{describe_kind(in_dt)}, spelt as the question or an earlier call gave it. Output: "
        f"one {describe_kind(out_dt)}, as recorded in the service's files.{extra} A name that "
        "is misspelt, shortened or paraphrased matches nothing and returns an error; the "
        "service never guesses. It answers this one question only: for any other fact about a "
        f"{describe_kind(in_dt)} (dates, sizes, people, places) use the service whose "
        "description names that fact, even when its name looks less fitting."
    )


def main() -> None:
    out = [
        "# Generated by make_domains.py (in this folder): 28 invented knowledge domains for the",
        "# CCTU-style cases. Edit the tables there and rerun, not this file.",
        "",
        f"let first_names = {FIRST!r}".replace("'", '"'),
        f"let roots = {ROOTS!r}".replace("'", '"'),
        f"let ends = {ENDS!r}".replace("'", '"'),
        "",
    ]
    for dt, (enum, members, _default, doc) in FILTERS.items():
        out.append(f"enum {enum} {{ {', '.join(members)} }}")
        out.append(f'datatype {dt}: {enum} role "stated" describe "{doc}"')
    out.append("")
    relations, domain_tools, backgrounds = [], [], []
    k = 0
    for slug, subject, kinds, tools in DOMAINS:
        out.append(f"# ---------------------------------------------------------------- {slug}")
        for dt, style, word in kinds:
            doc = (
                f"The exact name of a {describe_kind(dt)}, character for character as the "
                "question gives it or an earlier lookup returned it."
                if style in ("name", "person")
                else f"A {describe_kind(dt)} figure, as the office records it."
            )
            out.append(
                f'datatype {dt}: string {{ format "{fmt(style, word, k)}" describe "{doc}" }}'
            )
            k += 1
        names = []
        for name, in_dt, out_dt, filt, doc, phrase in tools:
            if not filt and in_dt == kinds[0][0]:  # the records a case starts from disagree
                filt, phrase = "Register", f"{phrase} (according to {{Register}})"
            args = f"{describe_kind(in_dt).split()[-1]}: {in_dt}"
            if filt:
                default = FILTERS[filt][2]
                args += f', {filt.lower()}: {filt} = "{default}"'
            text = tool_text(slug, subject, doc, in_dt, out_dt, filt)
            out.append(f'tool {name}({args}) -> {out_dt} {{ describe "{text}" }}')
            relations.append(f"{name}: {phrase}")
            names.append(name)
        domain_tools.append(f"{slug}: {' '.join(names)}")
        kinds_text = ", ".join(describe_kind(dt) for dt, _, _ in kinds[:4])
        backgrounds.append(
            f"{slug}: This case is about {subject}. The office keeps files on {kinds_text}, "
            "and on a few figures about each of them. None of these files are public: the "
            "names, dates and figures in them exist only in the office's records, so every one "
            "of them has to be looked up, never recalled or estimated. The lookup services are "
            "strict about names and return nothing for a value that is not spelt exactly as it "
            "was given or returned. Several services read the same kind of record and answer "
            "different questions, so the description of each one matters more than its name. "
            "Some services hold several records for one name (for instance successive holders "
            "of a post, or figures for different seasons) and take a filter that picks one; the "
            "person asking always says which one they mean, though not always in the filter's "
            "own words."
        )
        out.append("")

    def enum_block(name: str, entries: list[str]) -> list[str]:
        body = ",\n".join(f'  "{e}"' for e in entries)
        return [f"enum {name} {{", body, "}"]

    out += ["# How a question says what each tool finds ({x}: the input's phrase; {Filter}: the"]
    out += ["# words of the filter member the case wants)."]
    out += enum_block("relations", relations)
    out += enum_block("filter_words", [f"{k}: {v}" for k, v in FILTER_WORDS.items()])
    out += enum_block("domain_tools", domain_tools)
    out += enum_block("backgrounds", backgrounds)
    path = Path(__file__).with_name("domains.scn")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(DOMAINS)} domains, {len(relations)} tools")


if __name__ == "__main__":
    main()
