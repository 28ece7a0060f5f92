"""The offerings' constraints on pricing modes, now derived from the table of modes
(``webapp/catalog/pricing_modes.py``); a new one (the mode is one of the table's); and a
commitment without a term is refused (a NULL term used to leave the check unknown).
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0005_price_history_and_review'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='cloudoffering',
            name='offering_rework_spot_only_in_0_1',
        ),
        migrations.RemoveConstraint(
            model_name='cloudoffering',
            name='offering_term_matches_commitment_mode',
        ),
        migrations.AddConstraint(
            model_name='cloudoffering',
            constraint=models.CheckConstraint(condition=models.Q(('pricing_mode__in', ['on-demand', 'spot', 'commit-1y', 'commit-3y'])), name='offering_pricing_mode_known'),
        ),
        migrations.AddConstraint(
            model_name='cloudoffering',
            constraint=models.CheckConstraint(condition=models.Q(('rework_fraction__isnull', True), models.Q(('pricing_mode__in', ['spot']), ('rework_fraction__gte', 0), ('rework_fraction__lte', 1)), _connector='OR'), name='offering_rework_spot_only_in_0_1'),
        ),
        migrations.AddConstraint(
            model_name='cloudoffering',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(models.Q(('pricing_mode__in', ['commit-1y', 'commit-3y']), _negated=True), ('commitment_term_months__isnull', True)), models.Q(('commitment_term_months', 12), ('commitment_term_months__isnull', False), ('pricing_mode', 'commit-1y')), models.Q(('commitment_term_months', 36), ('commitment_term_months__isnull', False), ('pricing_mode', 'commit-3y')), _connector='OR'), name='offering_term_matches_commitment_mode'),
        ),
    ]
