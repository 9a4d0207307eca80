"""The scheduler's own jobs: the clock, mail delivery and digests, retention (docs/
architecture.md, "The services by area"); the computer's and the analysis' jobs live
with their areas."""
