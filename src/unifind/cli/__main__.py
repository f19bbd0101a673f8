"""``python -m unifind.cli``: the same as the ``unifind`` command."""

from unifind.cli import main

main()
