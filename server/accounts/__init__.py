"""Accounts (issue 18): names and passwords, server-side sessions, revocation.

``server.accounts.service.Accounts`` is the entry point (``app.state.accounts``);
``names`` (skeletons), ``hashing`` (argon2id in a bounded pool), ``store`` (memory, Redis).
"""

from .service import SENTENCES, Accounts, make_account_store

__all__ = ["SENTENCES", "Accounts", "make_account_store"]
