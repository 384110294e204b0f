import importlib
import os
import sys

import torch

vendor_name = (os.environ.get("GEMS_VENDOR") or "nvidia").lower()
torch_device_fn = torch.cuda
# FlagGems imports its vendor package as a top-level module from the backend directory.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "backend"))
vendor_module = importlib.import_module("_" + vendor_name)
