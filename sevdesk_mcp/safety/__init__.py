"""Safety controls shared by every layer: tiers, and (later) redaction, fencing, confirmation."""
