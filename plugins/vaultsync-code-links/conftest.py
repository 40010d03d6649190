# Lets `pytest` run these tests from a source checkout without installing the plugin first.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
