"""The curated table of receipt words per booking account, for SKR03 and SKR04, as data.

Source: ``../shared/docs/german-tax-rules.md`` §3 "Booking accounts (SKR03 / SKR04)" (the accounts
and the VAT notes), with the rates of §1 (the rate is fixed by the date of supply, §27(1) UStG)
and the DATEV charts' names for the few accounts §3 does not list (internet, energy, insurance,
consulting, repairs, goods, gifts). Each phrase matches as whole words, casefolded and
umlaut-insensitive (:mod:`.text`); nothing is matched as a prefix.

A case's ``rule`` is the sevDesk tax rule of a domestic receipt (9 with input tax, 10 without:
insurance, vehicle tax, fees, per diem); ``rate`` the usual rate, ``None`` where the receipt's
own rate decides. ``nature`` tells reverse charge what it is (:mod:`.foreign`): goods, a service,
a service whose place of supply is where it is used (travel, hotels, meals) or no supply at all
(tax, insurance, fees). ``item`` marks what the net amount decides (expense, GWG, pool, asset,
:mod:`.amounts`), never the words.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Literal, NamedTuple

SOURCE: Final = "german-tax-rules.md §3 (booking accounts), §1 (rates)"
Nature = Literal["goods", "service", "abroad", "none"]
SEVEN: Final = Decimal(7)
NINETEEN: Final = Decimal(19)
NIL: Final = Decimal(0)


class Case(NamedTuple):
    """One kind of receipt: its words, its account in each chart and what VAT it takes.

    :param sole: the accounts of a sole proprietor's own travel (SKR03, SKR04), where they
        differ from an employee's.
    """

    key: str
    label: str
    phrases: tuple[str, ...]
    skr03: str
    skr04: str
    rule: int
    rate: Decimal | None
    nature: Nature
    hint: str
    item: bool = False
    sole: tuple[str, str] | None = None


_C = Case
CASES: Final[tuple[Case, ...]] = (
    _C("office", "office supplies",
       ("bürobedarf", "büromaterial", "druckerpapier", "kopierpapier", "papier", "ordner", "toner",
        "tinte", "tintenpatrone", "druckerpatrone", "druckerpatronen", "haftnotizen",
        "hängeregister", "kugelschreiber", "stifte", "briefumschläge", "umschläge", "notizblock",
        "notizblöcke", "heftklammern", "locher", "etiketten", "office supplies", "stationery",
        "printer paper"),
       "4930", "6815", 9, NINETEEN, "goods",
       "19 %"),
    _C("postage", "postage",
       ("porto", "briefporto", "briefmarke", "briefmarken", "paketmarke", "paketmarken",
        "frankierung", "einschreiben", "versandkosten", "versand", "paketversand", "postage",
        "stamps", "shipping", "deutsche post", "dhl paket", "internetmarke", "dialogpost",
        "hermes", "paket", "pakete", "sendungen", "großbrief", "standardbrief"),
       "4910", "6800", 9, None, "service",
       "Deutsche Post's universal service (stamps, letters, parcels) is exempt: 0 %; other "
       "carriers 19 %; never 'durchlaufende Posten'"),
    _C("phone", "telephone, mobile",
       ("telefon", "telefonie", "mobilfunk", "mobilfunkvertrag", "handyvertrag", "handy",
        "festnetz", "telefonrechnung", "mobilfunkrechnung", "telekom", "vodafone", "o2",
        "sim", "phone", "mobile phone", "mobile plan"),
       "4920", "6805", 9, NINETEEN, "service",
       "19 %"),
    _C("internet", "internet",
       ("internet", "dsl", "glasfaser", "breitband", "internetanschluss", "internetzugang",
        "deutschlandlan", "webhosting", "hosting", "domain", "domains", "server hosting"),
       "4925", "6810", 9, NINETEEN, "service",
       "19 %"),
    _C("software", "software subscription, licence",
       ("software", "softwarelizenz", "lizenz", "lizenzen", "licence", "license", "abo",
        "abonnement", "subscription", "saas", "cloud", "microsoft 365", "office 365",
        "creative cloud", "jira software", "google workspace", "workspace", "jira", "confluence",
        "slack", "zoom", "dropbox", "github", "notion", "figma", "sevdesk", "datev", "app", "apps",
        "lexoffice", "lexware", "atlassian", "nutzungsentgelt", "acrobat", "users", "seats"),
       "4964", "6837", 9, NINETEEN, "service",
       "19 %; from an EU or foreign supplier: reverse charge"),
    _C("maintenance", "software and hardware maintenance",
       ("wartung", "wartungsvertrag", "softwarewartung", "software wartung", "supportvertrag",
        "it support", "maintenance"),
       "4806", "6495", 9, NINETEEN, "service",
       "19 %"),
    _C("perpetual", "perpetual licence bought outright (intangible asset)",
       ("dauerlizenz", "kauflizenz", "unbefristete lizenz", "perpetual licence",
        "perpetual license", "lifetime licence", "lifetime license"),
       "0027", "0135", 9, NINETEEN, "service",
       "19 %; a perpetual licence bought outright is an intangible asset"),
    _C("ads", "advertising (online ads)",
       ("werbung", "werbekosten", "anzeige", "anzeigen", "werbeanzeige", "onlinewerbung",
        "online werbung", "google ads", "adwords", "meta ads", "facebook ads", "instagram ads",
        "linkedin ads", "advertising", "ads", "flyer", "flyeralarm", "druck", "plakatwerbung",
        "außenwerbung", "poster", "sponsored content", "linkedin", "plakat", "plakate", "banner",
        "werbemittel", "kampagne", "sponsored"),
       "4600", "6600", 9, NINETEEN, "service",
       "19 %; from Ireland etc.: reverse charge"),
    _C("fares", "travel: fares",
       ("bahn", "bahnfahrt", "bahnticket", "fahrkarte", "fahrkarten", "fahrschein", "zugticket",
        "ice", "ic", "bahncard", "einzelfahrschein", "bvg", "flugschein", "eurowings",
        "taxiquittung", "deutsche bahn", "db fernverkehr", "fernverkehr", "nahverkehr",
        "regionalverkehr", "taxi", "taxifahrt", "taxiunternehmen", "taxizentrale", "stadtfahrt",
        "bus", "busfahrt", "tram", "straßenbahn", "u bahn", "s bahn", "öpnv", "flug",
        "flugticket", "flüge", "flight", "boarding", "airline", "lufthansa", "train",
        "railway", "ticket"),
       "4663", "6663", 9, None, "abroad",
       "rail in Germany 7 % at any distance; taxi, bus, tram within the municipality or up "
       "to 50 km 7 %; domestic flights 19 %; cross-border flights no German VAT (§26(3) "
       "UStG)",
       sole=("4673", "6673")),
    _C("hotel", "travel: hotel",
       ("hotel", "hotelrechnung", "übernachtung", "übernachtungen", "zimmer", "logis", "pension",
        "accommodation", "motel", "einzelzimmer", "doppelzimmer", "frühstück", "hotelrechnung",
        "room", "night", "nights"),
       "4666", "6660", 9, SEVEN, "abroad",
       "room 7 %; breakfast food 7 % from 2026; drinks, parking, Wi-Fi 19 %",
       sole=("4676", "6680")),
    _C("per_diem", "per-diem allowance",
       ("verpflegungsmehraufwand", "verpflegungspauschale", "tagegeld", "tagespauschale",
        "per diem", "spesenpauschale"),
       "4664", "6664", 10, NIL, "none",
       "no input tax; 14 / 28 EUR in Germany (§9(4a) EStG)",
       sole=("4674", "6674")),
    _C("meal", "business meal",
       ("bewirtung", "bewirtungsbeleg", "bewirtungskosten", "geschäftsessen", "arbeitsessen",
        "restaurant", "gaststätte", "gasthaus", "trattoria", "ristorante", "bistro", "mittagessen",
        "abendessen", "business meal", "business lunch", "business dinner", "speisen", "getränke",
        "brauhaus"),
       "4650", "6640", 9, None, "abroad",
       "70/30 split (4654 / 6644 for the 30 %); from 2026 food 7 %, drinks 19 %"),
    _C("fuel", "car: fuel",
       ("tankstelle", "tanken", "kraftstoff", "benzin", "diesel", "super", "super e10", "e10",
        "superbenzin", "adblue", "fuel", "petrol", "gasoline", "ladestrom", "aral", "shell",
        "esso", "totalenergies", "tankquittung", "tankbeleg"),
       "4530", "6530", 9, NINETEEN, "goods",
       "19 %"),
    _C("parking", "car: parking",
       ("parken", "parkhaus", "parkgebühr", "parkgebühren", "parkticket", "parkschein",
        "parkplatz", "tiefgarage", "parking"),
       "4530", "6530", 9, NINETEEN, "service",
       "19 %"),
    _C("car_insurance", "car: insurance",
       ("kfz versicherung", "autoversicherung", "kraftfahrtversicherung", "kfz", "kfz haftpflicht",
        "kfz haftpflichtversicherung", "vollkasko", "teilkasko", "kaskoversicherung",
        "car insurance", "motor insurance"),
       "4520", "6520", 10, NIL, "none",
       "no VAT (insurance tax instead)"),
    _C("vehicle_tax", "car: vehicle tax",
       ("kfz steuer", "kraftfahrzeugsteuer", "kraftfahrzeugsteuerbescheid", "vehicle tax"),
       "4510", "7685", 10, NIL, "none",
       "no VAT"),
    _C("car_repair", "car: repairs",
       ("kfz reparatur", "autoreparatur", "autowerkstatt", "kfz werkstatt", "werkstatt",
        "werkstattrechnung", "autohaus", "bremsscheiben", "bremsanlage", "kupplung", "dekra",
        "inspektion", "ölwechsel", "reifenwechsel", "reifen", "bremsen", "bremsbeläge",
        "hauptuntersuchung", "tüv", "car repair"),
       "4540", "6540", 9, NINETEEN, "service",
       "19 %"),
    _C("rent", "rent",
       ("miete", "büromiete", "kaltmiete", "warmmiete", "ladenmiete", "gewerbemiete",
        "mietvertrag", "raummiete", "coworking", "rent", "office rent"),
       "4210", "6310", 9, None, "none",
       "VAT only where the landlord opted (§4 Nr. 12, §9 UStG)"),
    _C("energy", "gas, electricity, water",
       ("strom", "stromrechnung", "gas", "wasser", "energie", "fernwärme", "stadtwerke",
        "electricity", "utilities"),
       "4240", "6325", 9, NINETEEN, "goods",
       "19 %"),
    _C("insurance", "insurance",
       ("versicherung", "versicherungen", "versicherungsbeitrag", "betriebshaftpflicht",
        "haftpflichtversicherung", "berufshaftpflicht", "betriebshaftpflichtversicherung",
        "elektronikversicherung", "versicherungs", "jahresbeitrag", "inhaltsversicherung",
        "rechtsschutzversicherung", "insurance"),
       "4360", "6400", 10, NIL, "none",
       "no VAT (insurance tax instead)"),
    _C("bank_fees", "bank fees",
       ("kontoführung", "kontoführungsgebühr", "kontoführungsgebühren", "kontoführungsentgelt",
        "entgeltaufstellung", "kontoabschluss", "rechnungsabschluss", "kreditkarte", "entgelt",
        "entgelte", "commerzbank", "sparkasse", "volksbank", "deutsche bank", "postbank",
        "kontogebühr", "kontogebühren", "kontoentgelt", "bankgebühr", "bankgebühren",
        "bankentgelt", "kartengebühr", "kreditkartengebühr", "jahresgebühr kreditkarte",
        "kontopaket", "bank fee", "bank fees", "bank charges", "transaction fee",
        "transaktionsgebühr"),
       "4970", "6855", 10, NIL, "none",
       "no VAT"),
    _C("books", "books, journals",
       ("buch", "bücher", "fachbuch", "fachbücher", "zeitschrift", "zeitschriften",
        "fachzeitschrift", "magazin", "zeitung", "zeitungsabo", "tageszeitung", "ebook",
        "handelsblatt", "digitalabo", "digitalpass", "verlag", "fachverlag", "jahresbezug", "nwb",
        "hugendubel", "thalia", "e book", "book", "books", "magazine", "journal", "newspaper"),
       "4940", "6820", 9, SEVEN, "goods",
       "7 %"),
    _C("consulting", "legal and tax advice",
       ("steuerberater", "steuerberatung", "steuerkanzlei", "rechtsanwalt", "rechtsberatung",
        "anwalt", "anwaltskanzlei", "kanzlei", "rechtsanwälte", "kostennote", "notar", "beratung",
        "beratungsleistung", "legal", "consulting", "legal advice"),
       "4950", "6825", 9, NINETEEN, "service",
       "19 %"),
    _C("bookkeeping", "bookkeeping",
       ("buchführung", "buchhaltung", "lohnbuchhaltung", "bookkeeping"),
       "4955", "6830", 9, NINETEEN, "service",
       "19 %"),
    _C("repairs", "repairs of machines",
       ("reparatur", "instandhaltung", "instandsetzung", "repair"),
       "4800", "6460", 9, NINETEEN, "service",
       "19 %"),
    _C("goods", "goods purchased for resale or production",
       ("wareneingang", "handelsware", "waren", "material", "rohstoffe", "rohmaterial", "holz",
        "schnittholz", "beschläge", "merchandise"),
       "3400", "5400", 9, NINETEEN, "goods",
       "19 % (3300 / 5300 at 7 %)"),
    _C("subcontractor", "subcontracted services",
       ("fremdleistung", "fremdleistungen", "subunternehmer", "nachunternehmer", "subcontractor"),
       "3100", "5900", 9, NINETEEN, "service",
       "19 %"),
    _C("gifts", "gifts to business friends",
       ("geschenk", "geschenke", "präsent", "präsente", "weinpräsent", "gift", "gifts"),
       "4630", "6610", 9, NINETEEN, "goods",
       "up to 50 EUR per person and year; above, 4635 / 6620 without input tax"),
    _C("equipment", "equipment (the net amount decides: expense, GWG, pool or asset)",
       ("laptop", "notebook", "macbook", "computer", "pc", "rechner", "monitor", "bildschirm",
        "drucker", "multifunktionsdrucker", "scanner", "smartphone", "iphone", "tablet", "ipad",
        "kamera", "beamer", "server", "nas", "bürostuhl", "office chair", "chair", "bureaustoel",
        "tastatur", "maus", "logitech", "thinkpad", "lenovo", "latitude", "dokumentenscanner",
        "scrivania", "executive desk", "schreibtisch", "regal", "rollcontainer", "aktenschrank",
        "möbel", "büromöbel", "stuhl", "tisch", "werkzeug", "bohrmaschine", "akkuschrauber",
        "maschine", "kaffeemaschine", "headset", "dockingstation"),
       "4930", "6815", 9, NINETEEN, "goods",
       "19 %; the net amount decides: up to 250 EUR an expense, up to 800 EUR a GWG (or the "
       "pool), above an asset (§6(2), (2a) EStG)",
       item=True),
)  # fmt: skip

OTHER: Final = Case(
    "other", "other operating expenses", (), "4900", "6300", 9, None, "service", "as printed"
)
