"""Learning: the Gymnasium and PettingZoo environments and the training scripts' helpers."""
