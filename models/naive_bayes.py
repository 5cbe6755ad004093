"""Gaussian naive Bayes on the raw features."""

from sklearn.naive_bayes import GaussianNB

model = GaussianNB()
