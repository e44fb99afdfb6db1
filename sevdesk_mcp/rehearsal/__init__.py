"""Rehearsal mode: the real account is read, every write goes to a local copy-on-write overlay.

- :mod:`.guard`: the transport wrapper that sends sevDesk plain reads only;
- :mod:`.tables`: which overlay table holds which sevDesk model;
- :mod:`.seed`: real records turned into the overlay engine's rows, under their own ids;
- :mod:`.merge`: the answer to a read, real records with the rehearsal's changes laid over;
- :mod:`.changes`: a write applied to the overlay, as a :class:`RehearsalChange`;
- :mod:`.numbers`: the real number ranges (format, padding, next value) in the overlay;
- :mod:`.chart`: the real booking accounts and receipt guidance in the overlay;
- :mod:`.transport`: :class:`Rehearsal`, the transport handed to the client;
- :mod:`.keep`: the overlay kept in a file, encrypted (AES-GCM).

What the overlay does not model (the overlay's engine is the fake sevDesk):

- changes made at sevDesk to a record after the rehearsal wrote it: the rehearsal's version
  wins from then on (records not written always show sevDesk's data);
- fields of a real record the fake's row type does not hold: they are dropped when the record
  is seeded, so a record written in the rehearsal answers without them;
- real records holding a value the fake cannot read: they are not seeded, and a write naming
  one is refused (:class:`~.seed.UnreadableRecordError`) instead of being guessed;
- what sevDesk computes itself from its own books: a bank account's balance at a date, the
  DATEV and CSV exports, and sevDesk's PDF layout are read from the real account (without the
  rehearsal's changes), except for a record written in the rehearsal, whose PDF is the fake's;
- sending: e-mails, letters and e-invoices are only recorded, nothing reaches anyone;
- tax rules: checked against sevDesk's documented, account-independent tax rule ids; tax sets
  (``taxType`` "custom" of bookkeeping 1.0) allow any rate;
- number ranges: invoices (all types share the RE range, as in the fake), credit notes and
  orders follow the real range; a format placeholder other than ``%YYYY``, ``%YY``, ``%MM``
  and ``%NUMBER`` is kept as it is;
- the booking accounts and receipt guidance are read once per rehearsal, before its first
  receipt is saved; a change to them at sevDesk during the rehearsal is not seen;
- sevDesk's bank connection and automatic matching: transactions only change when a tool of
  the rehearsal books or changes them.
"""
