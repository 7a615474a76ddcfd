"""Accounts: a guest claims their name with a password and signs in on other devices.

`credentials` (name rules, the scrypt hash), `attempts` (password attempt budgets),
`service` (`Accounts`: claim, login, logout, password change), `routes` (the HTTP
endpoints). The rows live in `wizard.server.storage.accounts`; ``docs/protocol.md``
describes the endpoints, ``docs/limits.md`` the budgets.
"""
