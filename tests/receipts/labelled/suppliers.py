"""The suppliers of the labelled receipts: (name, VAT id, ISO country, IBAN), as printed.

Invented, but shaped like the real ones (the Irish and US companies are the entities that
really invoice German business customers; their VAT ids are the published ones).
"""

from __future__ import annotations

from typing import Final

Supplier = tuple[str, str | None, str | None, str | None]

BUEROSHOP: Final[Supplier] = ("Büroshop24 GmbH", "DE811234567", "DE", "DE12500105170648489890")
PAPIER_AT: Final[Supplier] = ("Papier Direkt Handels GmbH", "ATU63512874", "AT", None)
MOEBEL_NL: Final[Supplier] = ("Kantoormeubel Direct B.V.", "NL853746291B01", "NL", None)
DEUTSCHE_POST: Final[Supplier] = ("Deutsche Post AG", "DE169838187", "DE", None)
DHL: Final[Supplier] = ("DHL Paket GmbH", "DE814124985", "DE", None)
AUTOHAUS: Final[Supplier] = ("Autohaus Kramer GmbH", "DE256789012", "DE", "DE44500105175407324931")
HUK: Final[Supplier] = ("HUK-COBURG Allgemeine Versicherung AG", None, "DE", None)
ALLIANZ: Final[Supplier] = ("Allianz Versicherungs-AG", None, "DE", None)
ZOLL: Final[Supplier] = ("Hauptzollamt Stuttgart", None, "DE", "DE86600000000060001516")
MOTEL_ONE: Final[Supplier] = ("Motel One Hamburg-Alster", "DE129273380", "DE", None)
HOTEL_WIEN: Final[Supplier] = ("Hotel Sacher Wien", "ATU15014804", "AT", None)
DB: Final[Supplier] = ("DB Fernverkehr AG", "DE260807022", "DE", None)
LUFTHANSA: Final[Supplier] = ("Deutsche Lufthansa AG", "DE122652565", "DE", None)
TAXI: Final[Supplier] = ("Taxi Berlin Funk GmbH", None, "DE", None)
BVG: Final[Supplier] = ("BVG Berliner Verkehrsbetriebe", "DE136630206", "DE", None)
GOOGLE_IE: Final[Supplier] = ("Google Ireland Limited", "IE6388047V", "IE", None)
META_IE: Final[Supplier] = ("Meta Platforms Ireland Limited", "IE9692928F", "IE", None)
ADOBE_IE: Final[Supplier] = ("Adobe Systems Software Ireland Ltd", "IE6364992H", "IE", None)
MICROSOFT_IE: Final[Supplier] = ("Microsoft Ireland Operations Ltd", "IE8256796U", "IE", None)
GITHUB_US: Final[Supplier] = ("GitHub, Inc.", None, "US", None)
FIGMA_US: Final[Supplier] = ("Figma, Inc.", None, "US", None)
ZOOM_US: Final[Supplier] = ("Zoom Video Communications, Inc.", None, "US", None)
LEXWARE: Final[Supplier] = ("Haufe-Lexware GmbH & Co. KG", "DE812398835", "DE", None)
SYSTEMHAUS: Final[Supplier] = (
    "Systemhaus Weber GmbH",
    "DE301234987",
    "DE",
    "DE27100777770209299700",
)
CYBERPORT: Final[Supplier] = ("Cyberport GmbH", "DE201234567", "DE", None)
MEDIAMARKT: Final[Supplier] = ("MediaMarkt Berlin-Alexanderplatz", "DE815736415", "DE", None)
AMAZON_EU: Final[Supplier] = ("Amazon EU S.à r.l.", "DE814584193", "LU", None)
THALIA: Final[Supplier] = ("Thalia Bücher GmbH", "DE126026463", "DE", None)
HANDELSBLATT: Final[Supplier] = ("Handelsblatt GmbH", "DE120392812", "DE", None)
VERLAG: Final[Supplier] = ("Fachverlag Recht und Steuern GmbH", "DE118765432", "DE", None)
ARAL: Final[Supplier] = ("Aral Station Berlin-Mitte", "DE811150408", "DE", None)
SHELL: Final[Supplier] = ("Shell Station Köln-Deutz", "DE811147643", "DE", None)
APCOA: Final[Supplier] = ("APCOA PARKING Deutschland GmbH", "DE147855473", "DE", None)
TELEKOM: Final[Supplier] = ("Telekom Deutschland GmbH", "DE814645262", "DE", None)
VODAFONE: Final[Supplier] = ("Vodafone GmbH", "DE813113094", "DE", None)
EINS_UND_EINS: Final[Supplier] = ("1&1 Telecom GmbH", "DE812458592", "DE", None)
LANDLORD_VAT: Final[Supplier] = ("Immobilien Schmidt GbR", "DE298765123", "DE",
                                 "DE75512108001245126199")  # fmt: skip
LANDLORD: Final[Supplier] = ("Hausverwaltung Berger", None, "DE", "DE91100000000123456789")
COWORKING: Final[Supplier] = ("Büro Kaiser Coworking GmbH", "DE312456789", "DE", None)
COMMERZBANK: Final[Supplier] = ("Commerzbank AG", None, "DE", None)
SPARKASSE: Final[Supplier] = ("Sparkasse KölnBonn", None, "DE", None)
LINDENHOF: Final[Supplier] = ("Restaurant Lindenhof", "DE287001122", "DE", None)
TRATTORIA: Final[Supplier] = ("Trattoria Da Marco", None, "DE", None)
FIGLMUELLER: Final[Supplier] = ("Figlmüller Wollzeile", "ATU36587201", "AT", None)
EMPLOYEE: Final[Supplier] = ("Max Weber (Reisekostenabrechnung)", None, None, None)
OWNER: Final[Supplier] = ("Erika Mustermann (Reisekosten Inhaberin)", None, None, None)
STROEER: Final[Supplier] = ("Ströer Media Deutschland GmbH", "DE812831563", "DE", None)
FLYERALARM: Final[Supplier] = ("Flyeralarm GmbH", "DE250370440", "DE", None)
STADTWERKE: Final[Supplier] = ("Stadtwerke Leipzig GmbH", "DE141504063", "DE", None)
KANZLEI: Final[Supplier] = ("Kanzlei Dr. Schulz Rechtsanwälte", "DE276543210", "DE", None)
ABBYY: Final[Supplier] = ("ABBYY Europe GmbH", "DE813155329", "DE", None)
HOTEL_ADLON: Final[Supplier] = ("Hotel Bayerischer Hof München", "DE129485006", "DE", None)
STAPLES: Final[Supplier] = ("Kaut-Bullinger Büro-Fachhandel GmbH", "DE129390185", "DE", None)
HERMES: Final[Supplier] = ("Hermes Germany GmbH", "DE118657431", "DE", None)
O2: Final[Supplier] = ("Telefónica Germany GmbH & Co. OHG", "DE811889638", "DE", None)
DATEV: Final[Supplier] = ("DATEV eG", "DE133546770", "DE", None)
LINKEDIN_IE: Final[Supplier] = ("LinkedIn Ireland Unlimited Company", "IE9740425P", "IE", None)
ATLASSIAN_US: Final[Supplier] = ("Atlassian US, Inc.", None, "US", None)
DEKRA: Final[Supplier] = ("Autoservice Yilmaz KG", "DE298001234", "DE", None)
DEVK: Final[Supplier] = ("DEVK Allgemeine Versicherungs-AG", None, "DE", None)
ZOLL_MUC: Final[Supplier] = ("Hauptzollamt München", None, "DE", "DE21700000000070001506")
HOTEL_LEIPZIG: Final[Supplier] = ("Steigenberger Grandhotel Handelshof Leipzig", "DE811202411",
                                  "DE", None)  # fmt: skip
EUROWINGS: Final[Supplier] = ("Eurowings GmbH", "DE811189735", "DE", None)
ISARFUNK: Final[Supplier] = ("IsarFunk Taxizentrale GmbH & Co. KG", None, "DE", None)
BRAUHAUS: Final[Supplier] = ("Brauhaus Sion", "DE122998877", "DE", None)
TOTAL: Final[Supplier] = ("TotalEnergies Station München", "DE811183221", "DE", None)
VERMIETER: Final[Supplier] = (
    "Grundstücksgemeinschaft Weidner",
    None,
    "DE",
    "DE65300500000001234567",
)
GEWERBEHOF: Final[Supplier] = ("Gewerbehof Nord GmbH & Co. KG", "DE265432198", "DE", None)
DEUTSCHE_BANK: Final[Supplier] = ("Deutsche Bank AG", None, "DE", None)
HUGENDUBEL: Final[Supplier] = ("Hugendubel Fachinformationen GmbH", "DE129273551", "DE", None)
NWB: Final[Supplier] = ("NWB Verlag GmbH & Co. KG", "DE124511289", "DE", None)
NOTEBOOKSBILLIGER: Final[Supplier] = ("notebooksbilliger.de AG", "DE813461745", "DE", None)
MOEBEL_IT: Final[Supplier] = ("Arredo Ufficio S.r.l.", "IT01234567890", "IT", None)
