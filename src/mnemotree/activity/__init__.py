"""What the user did: recorded events, and the workflows mined from them."""
