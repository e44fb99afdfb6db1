"""The DATEV export's file, read and checked: an EXTF reader of DATEV's published format
(:mod:`.extf`), the facts about one Buchungsstapel (:mod:`.batch`), the period's documents that
belong in it (:mod:`.expected`) and the check of sevDesk's ZIP (:mod:`.check`)."""
