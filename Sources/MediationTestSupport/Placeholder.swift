import Mediation
