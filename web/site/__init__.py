"""The web site around the dashboard: the home page and the account pages."""
