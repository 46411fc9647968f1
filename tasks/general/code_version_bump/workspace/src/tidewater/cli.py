import click

from . import __version__, predict_tides


@click.group()
@click.version_option(__version__, prog_name="tidewater")
def main():
    """Tide predictions from the command line."""


@main.command()
@click.argument("station")
@click.option("--hours", default=24, show_default=True)
def forecast(station, hours):
    click.echo(f"tidewater {__version__}: forecast for {station}, next {hours} h")
