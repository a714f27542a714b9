"""``python -m server ...`` is ``machiavelox ...``."""

import sys

from .cli import main

sys.exit(main())
