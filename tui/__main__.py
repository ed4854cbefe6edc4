"""`python -m tui`: the same as the `xla-tui` command."""

from tui.cli import main

raise SystemExit(main())
