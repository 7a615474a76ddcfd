"""Game analysis on the server: jobs in the pool's background worker, ``wizard analyse``."""
