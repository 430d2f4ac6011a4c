"""The live dashboard: server-rendered pages fed by the competition event stream."""
