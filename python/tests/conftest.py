import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

# The repository's root (fixtures under tests/fixtures).
ROOT = pathlib.Path(__file__).resolve().parents[2]
